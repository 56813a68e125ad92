namespace RedisVSDoublets.Tests;

/// <summary>The spec loader (no server needed): the real spec loads, malformed ones name their line.</summary>
public class SpecTests
{
    static string Real => File.ReadAllText(Path.Combine(RedisFixture.Root, Spec.RelativePath));

    static string Error(string from, string to)
    {
        Assert.Contains(from, Real);
        var e = Assert.Throws<SpecException>(() => Spec.Parse(Real.Replace(from, to), "spec.yaml", Bench.CheckRequest));
        return e.Message;
    }

    [Fact]
    public void TheRealSpecLoadsEverySuiteInTableOrder()
    {
        var spec = Stores.Spec();
        Assert.Equal(["links", "typical", "payload"], spec.Suites.Select(s => s.Id));
        Assert.Equal(["StackExchange.Redis", "FreeRedis", "CSRedisCore"], spec.File.Clients.Select(c => c.Id));
        Assert.Equal("Redis_Pipeline_FreeRedis", spec.File.Clients[1].Backend("Redis_Pipeline"));
        Assert.Equal("Redis_Pipeline", spec.File.Clients[0].Backend("Redis_Pipeline"));
        Assert.Equal(["Create", "Update", "Delete", "Each All", "Each Identity", "Each Concrete", "Each Outgoing", "Each Incoming"],
            spec.Suites[0].Operations.Select(o => o.Name));
        Assert.Equal(9, spec.Suites[1].Operations.Count);
        Assert.Equal(new Tally { Count = 200, Sum = 2 * 5050 }, spec.Suites[0].Operations[1].Expected.Tally([1000, 100]));
    }

    [Fact]
    public void UnknownFieldNamesItsLine()
    {
        var e = Error("family_env: BENCHMARK_BACKEND", "family_env: BENCHMARK_BACKEND\ncolour: blue");
        Assert.StartsWith("spec.yaml:", e);
        Assert.Contains("colour", e);
    }

    [Fact]
    public void WrongTypeAndDuplicateKeyAreRefused()
    {
        Assert.Contains("spec.yaml:", Error("default: 1000", "default: lots"));
        Assert.Contains("spec.yaml:", Error("    name: Create\n", "    name: Create\n        name: Again\n"));
    }

    [Fact]
    public void UnknownRequestNamesItsLineAndVerb()
    {
        var e = Error("do: [create_point]\n        expected: { ids: B+1", "do: [create_many]\n        expected: { ids: B+1");
        Assert.Matches(@"^spec\.yaml:\d+: ""create_many"": unknown request ""create_many""", e);
    }

    [Fact]
    public void UnknownSuiteIsAnErrorNotASkip()
    {
        Assert.Contains("no store implements the suite \"graphs\"", Error("  - id: typical", "  - id: graphs"));
    }

    [Fact]
    public void SizesComeFromTheEnvironmentWithClearErrors()
    {
        var spec = Stores.Spec();
        Assert.Equal([1000UL, 100UL], spec.SizesFrom(_ => null));
        var e = Assert.Throws<SpecException>(() => spec.SizesFrom(v => v == "BENCHMARK_LINKS" ? "2000" : null));
        Assert.Contains("BENCHMARK_LINKS=2000 is more than B = 1000", e.Message);
        Assert.Contains("is not a whole number", Assert.Throws<SpecException>(() => spec.SizesFrom(v => v == "BENCHMARK_BACKGROUND_LINKS" ? "many" : null)).Message);
        Assert.Contains("BENCHMARK_BACKEND=\"cassandra\": \"cassandra\" is not one of doublets, redis, doublets-file", Assert.Throws<SpecException>(() => spec.FamiliesFrom("cassandra")).Message);
        Assert.Equal(["doublets", "redis"], spec.FamiliesFrom(null).Select(f => f.Id));
        Assert.Equal(["doublets", "doublets-file"], spec.FamiliesFrom("doublets,doublets-file").Select(f => f.Id));
    }

    [Fact]
    public void TheEstimateIsTheRustSides()
    {
        using var estimate = new Estimate(RedisFixture.Root, [1000, 100]);
        // The doublets family's warm-up and sampling (0.5 s and 1 s), one cell, and its check.
        var cell = estimate.Cell("links", "create", "Doublets_United_Volatile", null);
        Assert.Equal(1, cell.Cells);
        Assert.Equal(1.5, cell.Sampling, 6);
        Assert.True(cell.Checks > 0);
        // each_all through FreeRedis reports every link at the client's own cost per item, beyond the sampling.
        Assert.True(estimate.Cell("links", "each_all", "Redis_NonTransaction", "FreeRedis").Beyond
            >= estimate.Cell("links", "each_all", "Redis_NonTransaction", null).Beyond);
        Assert.True(estimate.Load("links", "Redis_Pipeline") > estimate.Load("links", "Doublets_Split_Volatile"));
        Assert.Contains("cannot estimate create/Nowhere", Assert.Throws<InvalidOperationException>(() => estimate.Cell("links", "create", "Nowhere", null)).Message);
    }

    [Fact]
    public void TheClientVariablePicksClientsAsTheRustSideReadsIt()
    {
        // The same choices and refusals as rust/tests/spec.rs servers_are_picked_by_id_and_their_backends_named_after_them.
        var spec = Stores.Spec();
        Assert.Equal(["StackExchange.Redis", "FreeRedis", "CSRedisCore"], spec.ClientsFrom(null).Select(c => c.Id));
        Assert.Equal(["CSRedisCore", "FreeRedis"], spec.ClientsFrom("CSRedisCore, FreeRedis").Select(c => c.Id));
        Assert.Contains("BENCHMARK_CLIENTS=\"FreeRedis,Jedis\": \"Jedis\" is not one of StackExchange.Redis, FreeRedis, CSRedisCore",
            Assert.Throws<SpecException>(() => spec.ClientsFrom("FreeRedis,Jedis")).Message);
        Assert.Contains("names FreeRedis twice", Assert.Throws<SpecException>(() => spec.ClientsFrom("FreeRedis,FreeRedis")).Message);
        Assert.Contains("clients need client_env", Error("client_env: BENCHMARK_CLIENTS\n", ""));
    }

    [Fact]
    public void BencherLinesUseTheInvariantCultureWhateverTheCurrentOne()
    {
        var saved = System.Globalization.CultureInfo.CurrentCulture;
        try
        {
            System.Globalization.CultureInfo.CurrentCulture = new System.Globalization.CultureInfo("ru-RU");
            Assert.Equal("test create/Redis_Pipeline ... bench:   1,234,568 ns/iter (+/- 8,911)",
                Sampler.BencherLine("create/Redis_Pipeline", 1234567.6, 8910.7));
        }
        finally { System.Globalization.CultureInfo.CurrentCulture = saved; }
    }

    /// <summary>
    /// The provenance is the Rust side's (rust/tests/spec.rs tests its fingerprint): one call gives
    /// the checkout's fingerprint and the machine's conditions, and a checkout without a spec is
    /// refused with the Rust side's words.
    /// </summary>
    [Fact]
    public void ProvenanceIsTheRustOne()
    {
        Provenance.Begin();
        var lines = Provenance.Of(RedisFixture.Root).ToDictionary(p => p.Key, p => p.Value);
        Assert.Matches("^[0-9a-f]{40}$", lines["fingerprint"]);
        foreach (var key in new[] { "commit", "date", "cpu", "cpu_mhz", "hypervisor", "steal", "placement", "kernel" })
            Assert.True(lines.ContainsKey(key), key);
        var empty = Directory.CreateTempSubdirectory("rvd-provenance-").FullName;
        try
        {
            var e = Assert.Throws<SpecException>(() => Provenance.Of(empty));
            Assert.Contains("benchmarks.yaml", e.Message);
        }
        finally { Directory.Delete(empty, recursive: true); }
    }

    [Fact]
    public void ClientsAndLeftOutFamiliesAreCheckedWithTheirLine()
    {
        // The same refusals as rust/tests/spec.rs clients_and_left_out_families_are_checked_with_their_line.
        var e = Error("        mode: Transaction\n", "        mode: Batch\n");
        Assert.Contains("not_run: the mode \"Batch\" is not NonTransaction, Transaction or Pipeline", e);
        Assert.Contains("spec.yaml:", e);
        Assert.Contains("not_run: unknown suite \"cache\"", Error("      - suite: payload\n", "      - suite: cache\n"));
        Assert.Contains("not_run: unknown server \"valkey\"", Error("      - server: redis-unix\n", "      - server: valkey\n"));
        Assert.Contains("not_run: an entry needs a suite, a mode or a server", Error("      - suite: payload\n        mode: Transaction\n", "      -\n"));
        Assert.Contains("exactly one client must be the default", Error("    suffix: FreeRedis\n", ""));
        Assert.Contains("the client suffix \"CS-Redis\" must be letters and digits", Error("    suffix: CSRedisCore\n", "    suffix: CS-Redis\n"));
        Assert.Contains("the suite leaves the family doublets out, but lists its backend Doublets_Split_Volatile", Error(
            "    backends: [Redis_NonTransaction, Redis_Transaction, Redis_Pipeline, RedisUnix_NonTransaction",
            "    backends: [Doublets_Split_Volatile, Redis_NonTransaction, Redis_Transaction, Redis_Pipeline, RedisUnix_NonTransaction"));
    }

    [Fact]
    public void TheLoadSectionIsCheckedAsTheRustSideChecksIt()
    {
        Assert.Contains("spec.yaml:", Error("- { id: each_concrete }", "- { id: each_sideways }"));
        Assert.Contains("no suite has an operation \"each_sideways\"", Error("- { id: each_concrete }", "- { id: each_sideways }"));
        // Its work runs B down to B-N+1: not one i of 1..=N at a time.
        Assert.Contains("kv_delete: the load runs an operation one i at a time", Error("- { id: each_concrete }", "- { id: kv_delete }"));
        Assert.Contains("a pipeline or batch of 3 would split its 2 requests", Error("  batch: 16\n", "  batch: 3\n"));
        Assert.Contains("a pipeline or batch of 3 would split its 2 requests", Error("  client_depths: [1]\n", "  client_depths: [1, 3]\n"));
        Assert.Contains("latency_clients must be one of clients", Error("  latency_clients: 8\n", "  latency_clients: 5\n"));
        Assert.Contains("client_depths and batch are whole numbers above 0", Error("  client_depths: [1]\n", "  client_depths: []\n"));
        Assert.Contains("above 0", Error("  depths: [1, 16]\n", "  depths: [0, 16]\n"));
    }
}

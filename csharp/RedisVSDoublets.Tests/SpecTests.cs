namespace RedisVSDoublets.Tests;

/// <summary>The spec as the Rust side hands it over (no server needed): the real spec loads, a run's variables choose, refusals are the Rust side's.</summary>
public class SpecTests
{
    static string Real => File.ReadAllText(Path.Combine(RedisFixture.Root, Spec.RelativePath));

    static string Error(string from, string to)
    {
        Assert.Contains(from, Real);
        var e = Assert.Throws<SpecException>(() => Spec.Parse(Real.Replace(from, to), "spec.yaml", _ => null, 1UL << 40));
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
    public void TheRunsVariablesChooseAsTheRustSideReadsThem()
    {
        var chosen = Spec.Load(RedisFixture.Root, name => name switch
        {
            "BENCHMARK_BACKGROUND_LINKS" => "2_000",
            "BENCHMARK_BACKEND" => "doublets,doublets-file",
            "BENCHMARK_SERVERS" => "garnet",
            "BENCHMARK_CLIENTS" => "CSRedisCore, FreeRedis",
            "BENCHMARK_SUITES" => "payload,links",
            _ => null,
        }, 1UL << 40);
        // The suites in the spec's order, whatever order the variable names them in.
        Assert.Equal(["links", "payload"], chosen.Suites.Select(s => s.Id));
        Assert.Equal([2000UL, 100UL], chosen.Sizes);
        Assert.Equal(["doublets", "doublets-file"], chosen.Families.Select(f => f.Id));
        Assert.Equal(["garnet"], chosen.Servers.Select(s => s.Id));
        Assert.Equal(["CSRedisCore", "FreeRedis"], chosen.Clients.Select(c => c.Id));
        var defaults = Stores.Spec();
        Assert.Equal(["doublets", "redis"], defaults.Families.Select(f => f.Id));
        Assert.Equal(["StackExchange.Redis", "FreeRedis", "CSRedisCore"], defaults.Clients.Select(c => c.Id));
        Assert.Equal(["links", "typical", "payload"], defaults.Suites.Select(s => s.Id));
        Assert.Equal(defaults.File.Servers.Where(s => s.Default).Select(s => s.Id), defaults.Servers.Select(s => s.Id));
        Assert.Contains("BENCHMARK_CLIENTS=\"FreeRedis,Jedis\": \"Jedis\" is not one of StackExchange.Redis, FreeRedis, CSRedisCore",
            Assert.Throws<SpecException>(() => Spec.Load(RedisFixture.Root, v => v == "BENCHMARK_CLIENTS" ? "FreeRedis,Jedis" : null)).Message);
    }

    [Fact]
    public void ARefusalIsTheRustSidesWithItsLineAndColumn()
    {
        var e = Error("family_env: BENCHMARK_BACKEND", "family_env: BENCHMARK_BACKEND\ncolour: blue");
        Assert.Matches(@"^spec\.yaml: error: line \d+ column \d+: unknown field", e);
        Assert.Contains("colour", e);
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
}

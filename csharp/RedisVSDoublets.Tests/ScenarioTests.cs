using YamlDotNet.Serialization;
using YamlDotNet.Serialization.NamingConventions;

namespace RedisVSDoublets.Tests;

/// <summary>Replays spec/scenarios.yaml, which the Rust tests replay too, against every store.</summary>
public class ScenarioTests(RedisFixture redis) : IClassFixture<RedisFixture>
{
    public sealed class Step
    {
        [YamlMember(Alias = "do")] public string Do { get; set; } = "";
        public List<List<ulong>>? Finds { get; set; }
        public bool Fails { get; set; }
    }

    public sealed class Scenario
    {
        public string Name { get; set; } = "";
        public string Suite { get; set; } = "";
        public List<Step> Steps { get; set; } = [];
    }

    public sealed class ScenarioFile
    {
        public List<Scenario> Scenarios { get; set; } = [];
    }

    static List<Scenario> Scenarios(string suite) =>
        new DeserializerBuilder().WithNamingConvention(UnderscoredNamingConvention.Instance).Build()
            .Deserialize<ScenarioFile>(File.ReadAllText(Path.Combine(RedisFixture.Root, "spec/scenarios.yaml")))
            .Scenarios.Where(s => s.Suite == suite).ToList();

    static void Replay<TRequest, TFound>(IStore<TRequest, TFound> store, Scenario scenario, string name, Func<TFound, ulong[]> tuple)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
    {
        for (var k = 0; k < scenario.Steps.Count; k++)
        {
            var step = scenario.Steps[k];
            Assert.True(step.Fails != (step.Finds is not null), $"{scenario.Name}: each step has finds or fails");
            var words = step.Do.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            var args = words.Skip(1).Select(w => w == "*" ? (ulong?)null : ulong.Parse(w, System.Globalization.CultureInfo.InvariantCulture)).ToArray();
            var place = $"{name}: \"{scenario.Name}\", step {k + 1} ({step.Do})";
            List<TFound> got;
            try { got = Stores.Run(store, TRequest.Build(words[0], args)); }
            catch (Exception e) when (e is RequestException or InvalidOperationException or StackExchange.Redis.RedisException)
            {
                Assert.True(step.Fails, $"{place}: refused ({e.Message}) but should find results");
                continue;
            }
            Assert.False(step.Fails, $"{place}: should be refused");
            Assert.Equal(step.Finds!.Select(f => string.Join(",", f)), got.Select(f => string.Join(",", tuple(f))));
        }
    }

    [Fact]
    public void LinksScenariosOnEveryStore()
    {
        foreach (var scenario in Scenarios("links"))
        {
            Replay(new LinksModel(), scenario, "model", (Link l) => [l.Id, l.Source, l.Target]);
            foreach (var (name, make) in Stores.Links(redis))
            {
                var store = make();
                Replay(store, scenario, name, (Link l) => [l.Id, l.Source, l.Target]);
                (store as IDisposable)?.Dispose();
            }
        }
    }

    [Fact]
    public void TypicalScenariosOnEveryStore()
    {
        foreach (var scenario in Scenarios("typical"))
        {
            Replay(new UsageModel(), scenario, "model", (Entry e) => [e.Key, e.Value]);
            foreach (var (name, make) in Stores.Usage(redis))
            {
                var store = make();
                Replay(store, scenario, name, (Entry e) => [e.Key, e.Value]);
                (store as IDisposable)?.Dispose();
            }
        }
    }
}

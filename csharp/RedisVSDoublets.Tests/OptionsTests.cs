namespace RedisVSDoublets.Tests;

/// <summary>What needs no server: the harness's command line, and the key patterns a run cleans up by.</summary>
public class OptionsTests
{
    [Fact]
    public void ListTestAndFilterAreRead()
    {
        var options = Options.Parse(["--list", "--test", "--filter", "^each_all/"]);
        Assert.True(options.List);
        Assert.True(options.Test);
        Assert.True(options.Keeps("each_all/Redis_Pipeline"));
        Assert.False(options.Keeps("create/Redis_Pipeline"));
    }

    [Fact]
    public void ABareArgumentIsTheFilterAndNoFilterKeepsEverything()
    {
        Assert.True(Options.Parse(["Doublets"]).Keeps("create/Doublets_Split_Volatile"));
        Assert.False(Options.Parse(["Doublets"]).Keeps("create/Redis_Pipeline"));
        Assert.True(Options.Parse([]).Keeps("anything/at_all"));
    }

    [Fact]
    public void UnknownArgumentsAndBadPatternsAreRefused()
    {
        Assert.Contains("unknown argument \"--bogus\"", Assert.Throws<ArgumentException>(() => Options.Parse(["--bogus"])).Message);
        Assert.Contains("not a regular expression", Assert.Throws<ArgumentException>(() => Options.Parse(["--filter", "("])).Message);
    }

    [Fact]
    public void KeyPatternsAreNamesOrPrefixes()
    {
        Assert.True(RedisServer.Matches("links", "links"));
        Assert.False(RedisServer.Matches("links", "links:free"));
        Assert.True(RedisServer.Matches("links:*", "links:free"));
        Assert.False(RedisServer.Matches("pair:*", "pairs"));
        Assert.False(RedisServer.Matches("k:*", "someone:else"));
    }
}

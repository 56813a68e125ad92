namespace RedisVSDoublets.Tests;

/// <summary>
/// The refusals both languages share (spec/invalid): every malformed spec and every bad size is
/// refused before any work, with the message the case names. The Rust side makes them for both
/// (this harness has no spec reader of its own); its tests replay the same files.
/// </summary>
public class RefusalTests
{
    static readonly string Invalid = Path.Combine(RedisFixture.Root, "spec/invalid");

    /// <summary>Plenty of memory, so that only the sizes decide (the memory case asks for petabytes).</summary>
    const ulong Available = 1UL << 40;

    static string Refusal(string text) =>
        text.Split('\n').Select(l => l.Split("refused: ", 2)).First(p => p.Length == 2)[1].Trim();

    public static TheoryData<string> Specs() => [.. Directory.GetFiles(Invalid, "*.yaml").Select(f => Path.GetFileName(f))];

    [Theory]
    [MemberData(nameof(Specs))]
    public void EveryInvalidSpecIsRefusedBeforeAnyWork(string name)
    {
        var text = File.ReadAllText(Path.Combine(Invalid, name));
        var e = Assert.Throws<SpecException>(() => Spec.Parse(text, name, _ => null, Available));
        Assert.Contains(Refusal(text), e.Message);
    }

    [Fact]
    public void ThereAreCasesToReplay() => Assert.True(Specs().Count >= 12);

    public static TheoryData<string> Sizes() =>
        [.. File.ReadAllLines(Path.Combine(Invalid, "sizes.txt")).Where(l => l.Length > 0 && !l.StartsWith('#'))];

    [Theory]
    [MemberData(nameof(Sizes))]
    public void EveryInvalidSizeIsRefusedBeforeAnyWork(string line)
    {
        var settings = line.Split(" refused: ")[0].Split(' ').Select(s => s.Split('=', 2)).ToDictionary(p => p[0], p => p[1]);
        var e = Assert.Throws<SpecException>(() => Spec.Load(RedisFixture.Root, v => settings.GetValueOrDefault(v), Available));
        Assert.Contains(Refusal(line), e.Message);
    }

    [Fact]
    public void TheRealSpecAtItsDefaultSizesPasses() => Assert.Equal([1000UL, 100UL], Spec.Load(RedisFixture.Root, _ => null, Available).Sizes);

    /// <summary>As the Rust load run refuses it (rust/tests/refusals.rs): a load run measures every suite, so a pick of suites stops it before any work.</summary>
    [Fact]
    public async Task ALoadRunRefusesAPickOfSuites()
    {
        var start = new System.Diagnostics.ProcessStartInfo("dotnet", [Path.Combine(AppContext.BaseDirectory, "RedisVSDoublets.dll"), "--load", "1000"])
        { RedirectStandardError = true, RedirectStandardOutput = true, WorkingDirectory = RedisFixture.Root };
        start.Environment["BENCHMARK_SUITES"] = "payload, links";
        using var run = System.Diagnostics.Process.Start(start)!;
        var (output, errors) = (run.StandardOutput.ReadToEndAsync(), run.StandardError.ReadToEndAsync());
        await run.WaitForExitAsync();
        Assert.Equal(1, run.ExitCode);
        Assert.Contains("error: BENCHMARK_SUITES=\"payload, links\" picks the bench's suites; load and memory runs measure every suite: unset it", await errors);
        Assert.Empty(await output);
    }

    [Fact]
    public void ResultsMustNameAFileInAFolderThatExists()
    {
        Assert.Null(Preflight.ResultsPath(null));
        Assert.Contains("is a folder", Assert.Throws<IOException>(() => Preflight.ResultsPath(Path.GetTempPath())).Message);
        var missing = Path.Combine(Path.GetTempPath(), "no-such-folder-here", "csharp.txt");
        Assert.Contains("does not exist", Assert.Throws<IOException>(() => Preflight.ResultsPath(missing)).Message);
        var fine = Path.Combine(Path.GetTempPath(), "csharp.txt");
        Assert.Equal(fine, Preflight.ResultsPath(fine));
    }
}

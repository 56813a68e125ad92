using System.Diagnostics;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;

namespace RedisVSDoublets.Tests;

/// <summary>
/// A run ended by SIGTERM in the middle of its cells, as a user's kill or CI's timeout ends it: the
/// servers it started are stopped, and a server it did not start keeps running with nothing of the
/// run left on it.
/// </summary>
public sealed partial class InterruptTests : IClassFixture<RedisFixture>
{
    readonly RedisFixture redis;

    public InterruptTests(RedisFixture redis) => this.redis = redis;

    [Fact]
    public void SigtermStopsTheServersTheRunStarted()
    {
        var (ports, code, errors) = TerminatedRun(("BENCHMARK_SERVERS", "redis,garnet"));
        Assert.Equal(2, ports.Count);
        Assert.Equal(128 + 15, code);
        Assert.DoesNotContain("Unhandled exception", errors, StringComparison.Ordinal);
        foreach (var port in ports)
        {
            using var client = new TcpClient();
            Assert.Throws<SocketException>(() => client.Connect("127.0.0.1", port));
        }
    }

    [Fact]
    public void SigtermLeavesNothingOnAServerTheRunDidNotStart()
    {
        // The user's key in database 0, the run on database 1 of the same server.
        var user = redis.Server.Connection.GetDatabase(0);
        user.StringSet("user:key", "the user's");
        var (_, code, errors) = TerminatedRun(("REDIS_URL", redis.Server.Url[..^1] + "1"), ("BENCHMARK_SERVERS", null));
        Assert.Equal(128 + 15, code);
        Assert.DoesNotContain("Unhandled exception", errors, StringComparison.Ordinal);
        Assert.Equal("the user's", (string?)user.StringGet("user:key"));
        Assert.Equal(1L, (long)user.Execute("DBSIZE"));
        Assert.Equal(0L, (long)redis.Server.Connection.GetDatabase(1).Execute("DBSIZE"));
        Assert.Empty((StackExchange.Redis.RedisResult[])user.Execute("FUNCTION", "LIST")!);
    }

    /// <summary>
    /// Runs the harness's cell checks on Redis (the Debug build the tests reference, so --test),
    /// sends SIGTERM once the first cell has passed, and returns the ports of the servers it
    /// started, its exit code and its standard error.
    /// </summary>
    static (List<int> Ports, int Code, string Errors) TerminatedRun(params (string Name, string? Value)[] environment)
    {
        var start = new ProcessStartInfo("dotnet", [Path.Combine(AppContext.BaseDirectory, "RedisVSDoublets.dll"), "--test", "--filter", "Redis"])
        { RedirectStandardError = true, RedirectStandardOutput = true, WorkingDirectory = RedisFixture.Root };
        foreach (var (name, value) in environment)
            if (value is null) start.Environment.Remove(name);
            else start.Environment[name] = value;
        using var run = Process.Start(start)!;
        run.OutputDataReceived += (_, _) => { };
        run.BeginOutputReadLine();
        var (ports, errors) = (new List<int>(), new System.Text.StringBuilder());
        while (run.StandardError.ReadLine() is { } line)
        {
            errors.AppendLine(line);
            if (ServerLine().Match(line) is { Success: true } server)
                ports.Add(int.Parse(server.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture));
            if (line.StartsWith("Testing ", StringComparison.Ordinal)) break;
        }
        Assert.Equal(0, Kill(run.Id, 15));
        errors.Append(run.StandardError.ReadToEnd());
        run.WaitForExit();
        return (ports, run.ExitCode, errors.ToString());
    }

    [GeneratedRegex(@" at redis://127\.0\.0\.1:(\d+)/")]
    private static partial Regex ServerLine();

    [DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    static extern int Kill(int pid, int signal);
}

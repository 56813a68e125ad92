using System.Globalization;
using System.Runtime.InteropServices;
using RedisVSDoublets;

// `dotnet run -c Release --project csharp/RedisVSDoublets [-- --list | --test | --filter REGEX]`:
// every suite, operation and backend of spec/benchmarks.yaml, sampled as Criterion samples. Results
// (bencher lines) go to stdout, progress and errors to stderr. Exit codes: 0 every cell measured
// and checked, 1 otherwise.
CultureInfo.DefaultThreadCurrentCulture = CultureInfo.InvariantCulture;
CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
try
{
    return new Bench(Options.Parse(args)).Run();
}
catch (Exception) when (RedisServer.Interrupted)
{
    // The signal closed the bench's connection or stopped the servers it started, so the run
    // failed; the handler is still removing what the run wrote and ends the process when done.
    Thread.Sleep(Timeout.Infinite);
    return 130;
}
catch (Exception e) when (e is SpecException or ValidationException or RequestException or InvalidOperationException
    or ArgumentException or StackExchange.Redis.RedisException or IOException)
{
    // A client's message may quote its connection string: no password reaches the output.
    Console.Error.WriteLine($"error: {RedisServer.Scrub(e.Message, Environment.GetEnvironmentVariable("REDIS_URL"))}");
    return 1;
}

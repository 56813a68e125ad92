using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using StackExchange.Redis;

namespace RedisVSDoublets;

/// <summary>
/// The Redis server of a run: the one REDIS_URL names, or a disposable redis-server on a free
/// loopback port (no persistence), stopped on Dispose, on process exit and on Ctrl-C.
/// </summary>
public sealed class RedisServer : IDisposable
{
    /// <summary>Set in a database this project emptied, so a later run knows the data in it is its own.</summary>
    const string OwnerKey = "redisvsdoublets:owner";

    Process? process;
    public string Url { get; }
    public ConnectionMultiplexer Connection { get; }
    public bool Disposable => process is not null;

    RedisServer(string url, Process? process)
    {
        Url = url;
        this.process = process;
        Connection = ConnectionMultiplexer.Connect(Options(url));
    }

    /// <summary>redis://host:port/db into StackExchange.Redis options.</summary>
    static ConfigurationOptions Options(string url)
    {
        if (!Uri.TryCreate(url, UriKind.Absolute, out var uri) || uri.Scheme != "redis")
            throw new ArgumentException($"REDIS_URL={url} is not a redis://host:port/db URL");
        var options = new ConfigurationOptions { AbortOnConnectFail = true, ConnectTimeout = 5000, SyncTimeout = 600_000, AsyncTimeout = 600_000 };
        options.EndPoints.Add(uri.Host, uri.IsDefaultPort ? 6379 : uri.Port);
        var path = uri.AbsolutePath.Trim('/');
        options.DefaultDatabase = path.Length == 0 ? 0 : int.Parse(path, System.Globalization.CultureInfo.InvariantCulture);
        if (uri.UserInfo.Length > 0) options.Password = Uri.UnescapeDataString(uri.UserInfo.Split(':').Last());
        options.AllowAdmin = true;
        return options;
    }

    public static RedisServer FromEnvironment(string? url) =>
        string.IsNullOrWhiteSpace(url) ? StartDisposable() : new RedisServer(url, null);

    static RedisServer StartDisposable()
    {
        Exception? last = null;
        for (var attempt = 0; attempt < 5; attempt++)
        {
            var port = FreePort();
            Process process;
            try
            {
                process = Process.Start(new ProcessStartInfo("redis-server",
                    ["--port", port.ToString(System.Globalization.CultureInfo.InvariantCulture), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning"])
                { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false })!;
            }
            catch (System.ComponentModel.Win32Exception e)
            {
                throw new InvalidOperationException($"cannot start redis-server ({e.Message}): install it (Debian/Ubuntu: apt-get install -y redis-server) or set REDIS_URL");
            }
            var stop = () => { try { if (!process.HasExited) process.Kill(); } catch (InvalidOperationException) { } };
            AppDomain.CurrentDomain.ProcessExit += (_, _) => stop();
            Console.CancelKeyPress += (_, _) => stop();
            var watch = Stopwatch.StartNew();
            while (watch.Elapsed < TimeSpan.FromSeconds(10) && !process.HasExited)
            {
                try { return new RedisServer($"redis://127.0.0.1:{port}/0", process); }
                catch (RedisConnectionException e) { last = e; Thread.Sleep(20); }
            }
            stop();
            last ??= new InvalidOperationException($"redis-server on port {port} exited: {process.StandardError.ReadToEnd().Trim()}");
        }
        throw new InvalidOperationException($"could not start a disposable redis-server: {last?.Message}");
    }

    static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    public string Version()
    {
        var server = Connection.GetServer(Connection.GetEndPoints()[0]);
        return $"Redis {server.Version}";
    }

    /// <summary>
    /// An empty database with the function library loaded. A non-empty database is emptied only
    /// when this project emptied it before, when the server is disposable, or when allowed.
    /// </summary>
    public IDatabase Claim(string library, bool allowFlush)
    {
        var db = Connection.GetDatabase();
        var keys = (long)db.Execute("DBSIZE");
        var ours = db.KeyExists(OwnerKey);
        if (keys > 0 && !ours && !allowFlush && !Disposable)
            throw new InvalidOperationException(
                $"the database at REDIS_URL={Url} holds {keys} keys this benchmark did not write, and a run empties it: " +
                "point REDIS_URL at an empty database, or set BENCHMARK_ALLOW_FLUSH=1 to empty it anyway");
        db.Execute("FLUSHDB");
        db.StringSet(OwnerKey, 1);
        db.Execute("FUNCTION", "LOAD", "REPLACE", library);
        return db;
    }

    public void Dispose()
    {
        Connection.Dispose();
        if (process is { HasExited: false })
        {
            process.Kill();
            process.WaitForExit();
        }
        process = null;
    }
}

using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using StackExchange.Redis;

namespace RedisVSDoublets;

/// <summary>
/// The links function library (redis/links.lua, embedded at build time) as a server holds it:
/// named <c>rvd_</c> and the first 12 hex digits of the source's SHA-1, with every function named
/// after the library, exactly as the Rust side loads it. A user's library never collides with it.
/// </summary>
public sealed class Library
{
    public static readonly Library Links = new();

    public string Name { get; }
    /// <summary>The source with the name filled in, as FUNCTION LOAD takes it.</summary>
    public string Code { get; }
    public string CreatePoint { get; }
    public string Create { get; }
    public string Update { get; }
    public string Delete { get; }

    Library()
    {
        using var stream = typeof(Library).Assembly.GetManifestResourceStream("links.lua")
            ?? throw new InvalidOperationException("redis/links.lua is not embedded in the harness");
        using var buffer = new MemoryStream();
        stream.CopyTo(buffer);
        var source = buffer.ToArray();
        Name = "rvd_" + Convert.ToHexStringLower(System.Security.Cryptography.SHA1.HashData(source))[..12];
        Code = System.Text.Encoding.UTF8.GetString(source).Replace("__LIBRARY__", Name, StringComparison.Ordinal);
        (CreatePoint, Create, Update, Delete) = ($"{Name}_create_point", $"{Name}_create", $"{Name}_update", $"{Name}_delete");
    }
}

/// <summary>
/// The Redis server of a run: the one REDIS_URL names, or a disposable redis-server on a free
/// loopback port (no persistence), stopped on Dispose, on process exit and on Ctrl-C.
/// A run never deletes or overwrites what it did not write: it refuses a non-empty database unless
/// BENCHMARK_ALLOW_FLUSH=1, never replaces a library it did not load, and when it ends (success,
/// failure, Ctrl-C or SIGTERM) removes the keys it wrote and the library it loaded.
/// </summary>
public sealed class RedisServer : IDisposable
{
    /// <summary>The commands every suite needs beyond plain reads and writes.</summary>
    static readonly string[] NeededCommands = ["FUNCTION", "FCALL", "DBSIZE", "SCAN"];

    Process? process;
    readonly List<PosixSignalRegistration> signals = [];
    readonly object written = new();
    readonly HashSet<string> patterns = [];
    bool libraryLoaded;

    public string Url { get; }
    /// <summary>The URL as messages show it: without its password.</summary>
    public string Shown => Redact(Url);
    public ConnectionMultiplexer Connection { get; }
    public bool Disposable => process is not null;

    RedisServer(string url, Process? process)
    {
        Url = url;
        this.process = process;
        try { Connection = ConnectionMultiplexer.Connect(Options(url)); }
        catch (RedisConnectionException e) when (process is null)
        {
            throw new InvalidOperationException($"cannot connect to Redis at {Shown}: {e.Message.Replace(url, Shown, StringComparison.Ordinal)}");
        }
        if (process is null)
        {
            // Whatever ends the run (Ctrl-C, SIGTERM), what it wrote to a server it did not start
            // goes with it; the signal then ends the process as it would have.
            foreach (var signal in new[] { PosixSignal.SIGINT, PosixSignal.SIGTERM, PosixSignal.SIGQUIT })
                signals.Add(PosixSignalRegistration.Create(signal, OnSignal));
        }
    }

    static volatile bool interrupted;

    /// <summary>Whether a signal is removing what the run wrote: the run then fails (its connection is closed) and must let the handler end the process.</summary>
    public static bool Interrupted => interrupted;

    void OnSignal(PosixSignalContext context)
    {
        interrupted = true;
        try
        {
            // The bench may be in the middle of a cell, and its next write would land after the
            // cleanup: close its connection first (the multiplexer would reconnect a killed one)
            // and clean up over a new one.
            Connection.Close(allowCommandsToComplete: false);
            using var fresh = ConnectionMultiplexer.Connect(Options(Url));
            Release(fresh);
        }
        catch (Exception e) when (e is RedisException or ObjectDisposedException)
        {
            Console.Error.WriteLine($"interrupted: could not remove the benchmark's keys from {Shown}: {e.Message}");
        }
        // Exit here, as the signal would have, before the bench reports its closed connection as an error.
        Console.Error.WriteLine("interrupted");
        context.Cancel = true;
        Environment.Exit(128 + (context.Signal switch { PosixSignal.SIGINT => 2, PosixSignal.SIGQUIT => 3, _ => 15 }));
    }

    /// <summary><paramref name="url"/> with its password, if any, replaced by ***.</summary>
    public static string Redact(string url)
    {
        var scheme = url.IndexOf("://", StringComparison.Ordinal);
        if (scheme < 0) return url;
        var rest = url[(scheme + 3)..];
        var slash = rest.IndexOf('/');
        var at = (slash < 0 ? rest : rest[..slash]).LastIndexOf('@');
        if (at < 0) return url;
        return $"{url[..(scheme + 3)]}{rest[..at].Split(':')[0]}:***{rest[at..]}";
    }

    /// <summary>redis://host:port/db into StackExchange.Redis options.</summary>
    static ConfigurationOptions Options(string url)
    {
        if (!Uri.TryCreate(url, UriKind.Absolute, out var uri) || uri.Scheme != "redis")
            throw new ArgumentException($"REDIS_URL={Redact(url)} is not a Redis URL (redis://[user:password@]host:port/db)");
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

    /// <summary>Everything a run needs of the server, checked before any work and without writing.</summary>
    public void Preflight(bool allowFlush)
    {
        var db = Connection.GetDatabase();
        var known = (RedisResult[])db.Execute("COMMAND", ["INFO", .. NeededCommands])!;
        var missing = NeededCommands.Where((_, k) => known[k].IsNull).ToList();
        if (missing.Count > 0)
            throw new InvalidOperationException($"the server at {Shown} ({Version()}) lacks {string.Join(", ", missing)}, which the benches need: use Redis 7 or later");
        RefuseForeign(db, allowFlush);
    }

    long RefuseForeign(IDatabase db, bool allowFlush)
    {
        var keys = (long)db.Execute("DBSIZE");
        if (keys > 0 && !allowFlush && !Disposable)
            throw new InvalidOperationException(
                $"the database at REDIS_URL={Shown} holds {keys} keys, and a run needs it empty: " +
                "point REDIS_URL at an empty database, or set BENCHMARK_ALLOW_FLUSH=1 to empty it");
        return keys;
    }

    /// <summary>
    /// An empty database with the function library loaded, for a suite whose keys match
    /// <paramref name="keys"/>. A non-empty database is emptied only on a disposable server or when
    /// allowed; otherwise it is refused, whatever it holds.
    /// </summary>
    public IDatabase Claim(IEnumerable<string> keys, bool allowFlush)
    {
        var db = Connection.GetDatabase();
        if (RefuseForeign(db, allowFlush) > 0) db.Execute("FLUSHDB");
        lock (written)
        {
            patterns.UnionWith(keys);
            // FUNCTION LIST matches names by pattern: only the exact name counts.
            var present = ((RedisResult[])db.Execute("FUNCTION", "LIST", "LIBRARYNAME", Library.Links.Name)!)
                .Any(library => library.ToDictionary().TryGetValue("library_name", out var name) && (string?)name == Library.Links.Name);
            if (!present)
            {
                db.Execute("FUNCTION", "LOAD", Library.Links.Code);
                libraryLoaded = true;
            }
        }
        return db;
    }

    /// <summary>
    /// Removes what the run wrote so far: the claimed suites' keys (the database was empty when
    /// claimed, or its owner allowed emptying it, so every matching key is the run's) and the
    /// library, if this run loaded it.
    /// </summary>
    public void Release() => Release(Connection);

    void Release(IConnectionMultiplexer connection)
    {
        if (Disposable) return;
        lock (written)
        {
            var db = connection.GetDatabase();
            var server = connection.GetServer(connection.GetEndPoints()[0]);
            // One SCAN of the database, matched here: a SCAN per pattern would walk millions of keys several times.
            var batch = new List<RedisKey>();
            foreach (var key in patterns.Count == 0 ? [] : server.Keys(db.Database, pageSize: 10_000))
            {
                if (!patterns.Any(p => Matches(p, key!))) continue;
                batch.Add(key);
                if (batch.Count == 10_000) { db.KeyDelete([.. batch]); batch.Clear(); }
            }
            if (batch.Count > 0) db.KeyDelete([.. batch]);
            patterns.Clear();
            if (libraryLoaded) db.Execute("FUNCTION", "DELETE", Library.Links.Name);
            libraryLoaded = false;
        }
    }

    /// <summary>Whether <paramref name="key"/> matches a suite's pattern: a whole name, or a prefix followed by <c>*</c>.</summary>
    public static bool Matches(string pattern, string key) =>
        pattern.EndsWith('*') ? key.StartsWith(pattern[..^1], StringComparison.Ordinal) : key == pattern;

    public void Dispose()
    {
        Release();
        signals.ForEach(s => s.Dispose());
        Connection.Dispose();
        if (process is { HasExited: false })
        {
            process.Kill();
            process.WaitForExit();
        }
        process = null;
    }
}

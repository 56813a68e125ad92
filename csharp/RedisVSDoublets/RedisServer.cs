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
/// Servers without functions (Garnet) get the same source without its <c>#!lua</c> line as one
/// script, which runs the function its first argument names.
/// </summary>
internal sealed class Library
{
    public static readonly Library Links = new();

    public string Name { get; }
    /// <summary>The source with the name filled in, as FUNCTION LOAD takes it.</summary>
    public string Code { get; }
    /// <summary>The same without its <c>#!lua</c> line, as SCRIPT LOAD takes it, and its SHA-1.</summary>
    public string Script { get; }
    public string Sha { get; }
    public Calls Functions { get; }
    public Calls Scripts { get; }

    Library()
    {
        using var stream = typeof(Library).Assembly.GetManifestResourceStream("links.lua")
            ?? throw new InvalidOperationException("redis/links.lua is not embedded in the harness");
        using var buffer = new MemoryStream();
        stream.CopyTo(buffer);
        var source = buffer.ToArray();
        Name = "rvd_" + Convert.ToHexStringLower(System.Security.Cryptography.SHA1.HashData(source))[..12];
        Code = System.Text.Encoding.UTF8.GetString(source).Replace("__LIBRARY__", Name, StringComparison.Ordinal);
        Script = Code[(Code.IndexOf('\n') + 1)..];
        Sha = Convert.ToHexStringLower(System.Security.Cryptography.SHA1.HashData(System.Text.Encoding.UTF8.GetBytes(Script)));
        Functions = new Calls("FCALL", function => [$"{Name}_{function}", 0]);
        Scripts = new Calls("EVALSHA", function => [Sha, 0, function]);
    }
}

/// <summary>How a server runs the library: as functions, or (servers without them, like Garnet) as a script.</summary>
internal enum Scripting { Functions, Scripts }

/// <summary>
/// The library's functions as one server calls them: <c>FCALL name 0 …</c> or
/// <c>EVALSHA sha 0 function …</c>, each head made once (commands are built inside measured loops).
/// </summary>
internal sealed class Calls(string command, Func<string, object[]> head)
{
    public string Command { get; } = command;
    public object[] CreatePoint { get; } = head("create_point");
    public object[] Create { get; } = head("create");
    public object[] Update { get; } = head("update");
    public object[] Delete { get; } = head("delete");
}

/// <summary>
/// A server of a run: the one REDIS_URL names (identified from INFO server), or a disposable one of
/// a kind the spec declares, on a free loopback port (no persistence), stopped on Dispose, on
/// process exit and on Ctrl-C, SIGTERM or SIGQUIT. A run never deletes or overwrites what it did not write: it refuses
/// a non-empty database unless BENCHMARK_ALLOW_FLUSH=1, never replaces a library it did not load,
/// and when it ends (success, failure, Ctrl-C or SIGTERM) removes the keys it wrote and the library
/// it loaded.
/// </summary>
internal sealed class RedisServer : IDisposable
{
    /// <summary>What every suite needs of a server beyond its own commands: counting, finding and removing the run's keys, and transactions.</summary>
    static readonly string[] HarnessCommands = ["INFO", "COMMAND", "DBSIZE", "SCAN", "UNLINK", "CLIENT", "MULTI", "EXEC"];

    Process? process;
    /// <summary>For a durable server: how it starts again on its files, and whether it is killed (SIGKILL) rather than stopped (SIGTERM) first.</summary>
    Relaunch? relaunch;
    sealed record Relaunch(List<string> Args, string Root, bool Kill);
    readonly List<PosixSignalRegistration> signals = [];
    readonly object written = new();
    readonly HashSet<string> patterns = [];
    bool libraryLoaded;

    public string Url { get; }
    /// <summary>The URL as messages show it: without its password.</summary>
    public string Shown => Redact(Url);
    public ConnectionMultiplexer Connection { get; }
    public bool Disposable => process is not null;
    /// <summary>Its stores check themselves by DEBUG DIGEST: a disposable server whose spec says it has
    /// one (the digest covers every database, and a server the run did not start may have others in use).</summary>
    public bool HasDigest => Disposable && Kind.Digest;
    /// <summary>What it is, from INFO server: one of the spec's servers.</summary>
    public ServerDef Kind { get; }
    /// <summary>Its version, from the field of INFO server the spec names.</summary>
    public string Version { get; }
    /// <summary>How it runs the links suite's library.</summary>
    public Scripting Scripting { get; }
    public Calls Calls => Scripting == Scripting.Functions ? Library.Links.Functions : Library.Links.Scripts;

    RedisServer(string url, Process? process, IReadOnlyList<ServerDef> kinds)
    {
        Url = url;
        this.process = process;
        try { Connection = ConnectionMultiplexer.Connect(Options(url)); }
        catch (RedisConnectionException e) when (process is null)
        {
            throw new InvalidOperationException($"cannot connect to the server at {Shown}: {e.Message.Replace(url, Shown, StringComparison.Ordinal)}");
        }
        string what = "";
        try
        {
            var db = Connection.GetDatabase();
            (Kind, Version) = Identify(db, kinds, IsUnix(new Uri(url)));
            what = $" ({Describe()})";
            Scripting = DetectScripting(db);
            SplitRefused = Kind.SplitMissing is null ? SplitRefusal(db) : null;
        }
        catch (Exception e) when (e is InvalidOperationException or RedisException)
        {
            Connection.Dispose();
            throw new InvalidOperationException($"the server at {Shown}{what}: {e.Message}", e);
        }
        if (process is null)
        {
            // Whatever ends the run (Ctrl-C, SIGTERM), what it wrote to a server it did not start
            // goes with it; the signal then ends the process as it would have.
            foreach (var signal in AtEnd.Signals)
                signals.Add(PosixSignalRegistration.Create(signal, OnSignal));
        }
    }

    /// <summary>Where other clients connect: the URL's address, database, user and password (a host and port: the spec keeps the clients that reach no Unix socket from such a server).</summary>
    public Endpoint Endpoint
    {
        get
        {
            var uri = new Uri(Url);
            if (IsUnix(uri)) throw new InvalidOperationException($"{Shown} is a Unix socket, which this client cannot reach");
            var path = uri.AbsolutePath.Trim('/');
            var (user, password) = Credentials(uri);
            return new(uri.Host, uri.IsDefaultPort ? 6379 : uri.Port, path.Length == 0 ? 0 : int.Parse(path, System.Globalization.CultureInfo.InvariantCulture), user, password);
        }
    }

    /// <summary>
    /// The server's words where it refused the readings that split a cell's time (a server the
    /// run did not start may deny INFO to the user it is given, by an ACL), or what its reply
    /// lacks: its cells are then not split, and the run goes on.
    /// </summary>
    public string? SplitRefused { get; }

    /// <summary>Whether its cells are split: its spec gives no reason they cannot be, and it did not refuse the readings.</summary>
    public bool Splits => Kind.SplitMissing is null && SplitRefused is null;

    /// <summary>Asks for a reading (<c>INFO cpu commandstats</c>, which changes nothing on the server): null where it gives one.</summary>
    static string? SplitRefusal(IDatabase db)
    {
        try { return Split.Unusable((string?)db.Execute("INFO", "cpu", "commandstats") ?? ""); }
        catch (RedisServerException e) { return e.Message; }
    }

    /// <summary>For a server on a host of its own: the network to it and the round trip measured over it, for the result file's network line.</summary>
    public string? NetworkLine { get; private set; }

    /// <summary>
    /// Stops a durable server (SIGTERM, after which Redis fsyncs its file, or SIGKILL where the run
    /// stops stores as a crash would) and starts it again on its files, as the Rust bench does;
    /// once it answers, rewrites its files from what it read (the spec's compact), so that the next
    /// restart reads the background and one cell's writes. False for a server that keeps nothing.
    /// </summary>
    public bool Restart()
    {
        if (relaunch is not { } again || process is not { } old) return false;
        ServerProcesses.Signal(old, again.Kill);
        old.WaitForExit();
        // Garnet does not handle SIGTERM: it ends as the signal ends it (its launcher then exits with 128 + 15), as a killed server would.
        if (!again.Kill && old.ExitCode is not (0 or 143))
            throw new InvalidOperationException($"{Kind.Name} exited with {old.ExitCode} when stopped: {old.StandardError.ReadToEnd().Trim()}");
        process = ServerProcesses.Relaunch(old, again.Args, again.Root);
        var db = Connection.GetDatabase();
        var watch = Stopwatch.StartNew();
        // The multiplexer connects again by itself (every 10 ms, by its options' retry policy: its
        // default backs off to seconds); a server still loading its file says LOADING.
        while (true)
        {
            try { db.Ping(); break; }
            catch (Exception e) when (e is RedisConnectionException or RedisServerException or RedisTimeoutException)
            {
                if (process.HasExited) throw new InvalidOperationException($"{Kind.Name} exited when started again: {process.StandardError.ReadToEnd().Trim()}");
                if (watch.Elapsed > TimeSpan.FromSeconds(60)) throw new InvalidOperationException($"{Kind.Name} did not answer within 60 s of its restart: {e.Message}");
                Thread.Sleep(10);
            }
        }
        if (Kind.Compact is { } compact)
        {
            db.Execute(compact.Command[0], [.. compact.Command.Skip(1)]);
            while (!compact.Done.All(((string?)db.Execute("INFO", "persistence") ?? "").Split('\n').Select(l => l.Trim()).Contains))
            {
                if (watch.Elapsed > TimeSpan.FromSeconds(60)) throw new InvalidOperationException($"{Kind.Name} did not finish {string.Join(" ", compact.Command)} within 60 s");
                Thread.Sleep(10);
            }
        }
        // Functions are in the file with the data; a library loaded as a script is not.
        if (Scripting == Scripting.Scripts) LoadScript(db);
        return true;
    }

    /// <summary>"Redis 7.0.15", as the provenance and messages name it.</summary>
    public string Describe() => $"{Kind.Name} {Version}";

    /// <summary>For the method text and the provenance.</summary>
    public string DescribeScripting() => Scripting == Scripting.Functions ? "functions: FUNCTION LOAD, FCALL" : "scripts: SCRIPT LOAD, EVALSHA";

    /// <summary>The backend name of <paramref name="mode"/> on this server, as the spec names it: Garnet_Pipeline.</summary>
    public string Backend(Mode mode) => $"{Kind.Name}_{mode}";

    /// <summary>
    /// Which of <paramref name="kinds"/> the server is, and its version, from INFO server: its
    /// server_name where it reports one (Garnet does; Redis 7 does not), else the first kind whose
    /// version field it has.
    /// </summary>
    /// <summary>Which of <paramref name="kinds"/> the server is, from INFO server and the transport: a Redis reached through a Unix socket is the spec's server of that transport (RedisUnix), as on the Rust side.</summary>
    static (ServerDef, string) Identify(IDatabase db, IReadOnlyList<ServerDef> kinds, bool socket)
    {
        kinds = [.. kinds.Where(k => k.Socket == socket)];
        var info = ((string?)db.Execute("INFO", "server") ?? "").Split('\n').Select(l => l.Trim()).ToList();
        string? Field(string name) => info.FirstOrDefault(l => l.StartsWith(name + ":", StringComparison.Ordinal))?[(name.Length + 1)..];
        var name = Field("server_name");
        foreach (var kind in kinds)
            // The spec's ids of one server program begin with the name it gives (garnet, garnet-aof), as on the Rust side.
            if ((name is null || string.Equals(name, kind.Id, StringComparison.OrdinalIgnoreCase) || kind.Id.StartsWith(name + "-", StringComparison.OrdinalIgnoreCase)) && Field(kind.VersionField) is { } version)
                return (kind, version);
        throw new InvalidOperationException(
            $"INFO server names {name ?? "no server_name"}, which is none of the servers the spec knows {(socket ? "through a Unix socket" : "over TCP")}: {string.Join(", ", kinds.Select(k => $"{k.Name} ({k.VersionField})"))} " +
            "(a server of another kind needs an entry under `servers:` in spec/benchmarks.yaml, with its version field, and its three backends)");
    }

    /// <summary>
    /// How the server can run the library: functions where it has them, else scripts, else refused.
    /// Asked without writing: COMMAND INFO, and SCRIPT EXISTS (a server may list EVALSHA yet have
    /// scripting switched off, as Garnet without --lua does).
    /// </summary>
    static Scripting DetectScripting(IDatabase db)
    {
        if (Missing(db, ["FUNCTION", "FCALL"]).Count == 0) return Scripting.Functions;
        var missing = Missing(db, ["SCRIPT", "EVALSHA"]);
        string answer;
        if (missing.Count == 0)
        {
            try
            {
                db.Execute("SCRIPT", "EXISTS", Library.Links.Sha);
                return Scripting.Scripts;
            }
            catch (RedisServerException e) { answer = $"SCRIPT EXISTS answers {e.Message}"; }
        }
        else answer = $"it lacks {string.Join(", ", missing)}";
        throw new InvalidOperationException(
            $"it has neither functions (FUNCTION, FCALL) nor scripts ({answer}), and the links suite runs redis/links.lua: " +
            "use Redis 7 or later, or a server with Lua scripts (Garnet: --lua)");
    }

    /// <summary>Which of <paramref name="commands"/> the server does not know (COMMAND INFO answers nil for them).</summary>
    static List<string> Missing(IDatabase db, string[] commands)
    {
        var known = (RedisResult[])db.Execute("COMMAND", ["INFO", .. commands])!;
        return commands.Where((_, k) => known[k].IsNull).ToList();
    }

    static volatile bool interrupted;

    /// <summary>Whether a signal is ending the run: the run then fails (its connection is closed, or the servers it started are stopped) and must let the handler end the process.</summary>
    public static bool Interrupted => interrupted;

    internal static void Interrupting() => interrupted = true;

    void OnSignal(PosixSignalContext context)
    {
        Interrupting();
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
        Exit(context);
    }

    /// <summary>
    /// For a signal's handler, once it has cleaned up: ends the process as the signal would have,
    /// before the run reports its closed connections or stopped servers as an error.
    /// </summary>
    internal static void Exit(PosixSignalContext context)
    {
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

    /// <summary><paramref name="text"/> with the password of <paramref name="url"/>, if any, replaced by ***.</summary>
    public static string Scrub(string text, string? url)
    {
        if (url is null || !Uri.TryCreate(url, UriKind.Absolute, out var uri) || Credentials(uri).Password is not { Length: > 0 } password) return text;
        return text.Replace(password, "***", StringComparison.Ordinal);
    }

    /// <summary>Whether <paramref name="url"/> reaches its server through a Unix socket: redis+unix:///path?db=N (or unix://), as redis-rs reads it.</summary>
    static bool IsUnix(Uri uri) => uri.Scheme is "redis+unix" or "unix";

    /// <summary>
    /// The user and the password of a URL, as redis-rs reads them on the Rust side:
    /// <c>user:password@</c>, <c>:password@</c> (the default user) or <c>user@</c> (no password).
    /// </summary>
    static (string? User, string? Password) Credentials(Uri uri)
    {
        if (uri.UserInfo.Length == 0) return (null, null);
        var parts = uri.UserInfo.Split(':', 2);
        var user = Uri.UnescapeDataString(parts[0]);
        return (user.Length > 0 ? user : null, parts.Length == 2 ? Uri.UnescapeDataString(parts[1]) : null);
    }

    /// <summary>redis://host:port/db, or redis+unix:///path?db=N, into StackExchange.Redis options.</summary>
    static ConfigurationOptions Options(string url)
    {
        if (!Uri.TryCreate(url, UriKind.Absolute, out var uri) || !(uri.Scheme == "redis" || IsUnix(uri)))
            throw new ArgumentException($"REDIS_URL={Redact(url)} is not a Redis URL (redis://[user:password@]host:port/db, or redis+unix:///path?db=N)");
        // A durable server restarts after each cell: the multiplexer connects again within 10 ms
        // rather than after its default back-off (2.7 s a restart here).
        var options = new ConfigurationOptions { AbortOnConnectFail = true, ConnectTimeout = 5000, SyncTimeout = 600_000, AsyncTimeout = 600_000, ReconnectRetryPolicy = new LinearRetry(10) };
        var database = IsUnix(uri)
            ? System.Web.HttpUtility.ParseQueryString(uri.Query)["db"] ?? ""
            : uri.AbsolutePath.Trim('/');
        if (IsUnix(uri)) options.EndPoints.Add(new UnixDomainSocketEndPoint(uri.AbsolutePath));
        else options.EndPoints.Add(uri.Host, uri.IsDefaultPort ? 6379 : uri.Port);
        options.DefaultDatabase = database.Length == 0 ? 0 : int.Parse(database, System.Globalization.CultureInfo.InvariantCulture);
        (options.User, options.Password) = Credentials(uri);
        options.AllowAdmin = true;
        return options;
    }

    /// <summary>
    /// The servers a run uses: the one REDIS_URL names, else a disposable server of each kind the
    /// server variable names (default: those the spec marks default).
    /// </summary>
    public static List<RedisServer> FromEnvironment(Spec spec, string root, Func<string, string?> get, DurableFolder? folder)
    {
        if (get("REDIS_URL") is { } url && !string.IsNullOrWhiteSpace(url)) return [At(url, spec.File.Servers)];
        var servers = new List<RedisServer>();
        try
        {
            foreach (var kind in spec.Servers) servers.Add(Start(kind, root, folder));
        }
        catch
        {
            servers.ForEach(s => s.Dispose());
            throw;
        }
        return servers;
    }

    /// <summary>The server at <paramref name="url"/>, which must be one of <paramref name="kinds"/>.</summary>
    public static RedisServer At(string url, IReadOnlyList<ServerDef> kinds) => new(url, null, kinds);

    /// <summary>
    /// Starts a disposable server of <paramref name="kind"/> on a free loopback port, after its
    /// prepare command; a durable one keeps its files in a folder of its own in the run's
    /// <paramref name="durable"/> folder, and is restarted on them after each cell.
    /// </summary>
    public static RedisServer Start(ServerDef kind, string root, DurableFolder? durable = null)
    {
        if (kind.KeepsFiles && durable is null)
            throw new InvalidOperationException($"{kind.Name} keeps its data in files, so the run makes a folder for them before it starts");
        if (kind.Prepare.Count > 0)
        {
            var prepared = Bench.CommandIn(root, kind.Prepare[0], [.. kind.Prepare.Skip(1)]) is not null;
            if (!prepared) throw new InvalidOperationException($"`{string.Join(" ", kind.Prepare)}` failed, so {kind.Name} cannot start: install {kind.Install}");
        }
        Exception? last = null;
        for (var attempt = 0; attempt < 5; attempt++)
        {
            var port = FreePort().ToString(System.Globalization.CultureInfo.InvariantCulture);
            // A server reached through a Unix socket gets it in a folder only this user can
            // enter, made for it and removed when it stops, as on the Rust side.
            var folder = kind.Socket
                ? Path.Combine(Path.GetTempPath(), $"redis-vs-doublets-{Environment.ProcessId}-{port}")
                : null;
            var socket = folder is null ? null : Path.Combine(folder, "server.sock");
            if (folder is not null && !OperatingSystem.IsWindows())
                Directory.CreateDirectory(folder, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
            // A server with a round trip runs on a host of its own, made for it and removed when it stops.
            Network? network;
            try { network = kind.RoundTripUs is { } roundTrip ? new Network(kind.Name, roundTrip, int.Parse(port, System.Globalization.CultureInfo.InvariantCulture)) : null; }
            catch
            {
                if (folder is not null) Directory.Delete(folder, recursive: true);
                throw;
            }
            var data = kind.KeepsFiles ? Directory.CreateDirectory(Path.Combine(durable!.Path, $"{kind.Name}-{port}")).FullName : null;
            var args = kind.Start.Select(a => a.Replace("{port}", port, StringComparison.Ordinal).Replace("{socket}", socket, StringComparison.Ordinal)
                .Replace("{host}", network?.Server, StringComparison.Ordinal).Replace("{dir}", data, StringComparison.Ordinal)).ToList();
            if (network is not null) args = [.. network.Exec, .. args];
            Process process;
            try { process = ServerProcesses.Launch(args, root, folder, network); }
            catch (System.ComponentModel.Win32Exception e)
            {
                if (folder is not null) Directory.Delete(folder, recursive: true);
                network?.Dispose();
                throw new InvalidOperationException($"cannot start {kind.Name} ({e.Message}): install {kind.Install}");
            }
            var stop = () => ServerProcesses.Stop(process);
            var url = (socket, network) switch
            {
                ({ } unix, _) => $"redis+unix://{unix}?db=0",
                (null, { } host) => $"redis://{host.Host}:{port}/0",
                _ => $"redis://127.0.0.1:{port}/0",
            };
            var watch = Stopwatch.StartNew();
            while (watch.Elapsed < TimeSpan.FromSeconds(60) && !process.HasExited)
            {
                try
                {
                    return new RedisServer(url, process, [kind])
                    {
                        NetworkLine = network is null ? null : $"{kind.Name}: {network.Measure(kind.Name, url)}",
                        relaunch = data is null ? null : new(args, root, durable!.Kills),
                    };
                }
                catch (RedisConnectionException e) { last = e; Thread.Sleep(20); }
                catch (InvalidOperationException) { stop(); throw; }
            }
            stop();
            last ??= new InvalidOperationException($"{kind.Name} on port {port} exited: {process.StandardError.ReadToEnd().Trim()}");
        }
        throw new InvalidOperationException($"could not start a disposable {kind.Name}: {last?.Message}");
    }

    /// <summary>
    /// A free loopback port that no other server of this process was given, as on the Rust side: a
    /// port is free when picked and taken only when the server binds it, seconds later for Garnet,
    /// and tests start servers in parallel; a second server given the same port meanwhile would bind
    /// it first, so that the first one's readiness check found the other's server.
    /// </summary>
    static int FreePort()
    {
        lock (Given)
        {
            for (var attempt = 0; attempt < 100; attempt++)
            {
                using var listener = new TcpListener(IPAddress.Loopback, 0);
                listener.Start();
                var port = ((IPEndPoint)listener.LocalEndpoint).Port;
                if (Given.Add(port)) return port;
            }
            throw new InvalidOperationException("no free loopback port that this run has not given out already");
        }
    }

    static readonly HashSet<int> Given = [];

    /// <summary>Everything a run needs of the server, checked before any work and without writing.</summary>
    public void Preflight(bool allowFlush)
    {
        var db = Connection.GetDatabase();
        var missing = Missing(db, HarnessCommands);
        if (missing.Count > 0)
            throw new InvalidOperationException($"the server at {Shown} ({Describe()}) lacks {string.Join(", ", missing)}, which the benches need");
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
        // Key by key, not FLUSHDB: after a FLUSHDB, Garnet 2.2.8 now and then answers DEL of an
        // existing key with 0 (rust/examples/garnet_flushdb.rs shows it), which would fail the
        // next suite's checks for the server's fault, not the store's.
        if (RefuseForeign(db, allowFlush) > 0) DeleteMatching(Connection, ["*"]);
        lock (written)
        {
            patterns.UnionWith(keys);
            if (Scripting == Scripting.Scripts)
            {
                // A script cache entry is not data, and there is no way to remove one entry
                // (SCRIPT FLUSH would remove everyone's): it stays, under its content's SHA-1.
                LoadScript(db);
                return db;
            }
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
            DeleteMatching(connection, patterns);
            patterns.Clear();
            if (libraryLoaded) db.Execute("FUNCTION", "DELETE", Library.Links.Name);
            libraryLoaded = false;
        }
    }

    /// <summary>Deletes every key that matches one of <paramref name="patterns"/>, in one SCAN of the database (a SCAN per pattern would walk millions of keys several times).</summary>
    static void DeleteMatching(IConnectionMultiplexer connection, IReadOnlyCollection<string> patterns)
    {
        if (patterns.Count == 0) return;
        var db = connection.GetDatabase();
        var server = connection.GetServer(connection.GetEndPoints()[0]);
        var batch = new List<RedisKey>();
        foreach (var key in server.Keys(db.Database, pageSize: 10_000))
        {
            if (!patterns.Any(p => Matches(p, key!))) continue;
            batch.Add(key);
            if (batch.Count == 10_000) { db.KeyDelete([.. batch]); batch.Clear(); }
        }
        if (batch.Count > 0) db.KeyDelete([.. batch]);
    }

    /// <summary>Loads the library as a script into the server's cache (which a restart empties: it is not data), checking that the server hashes it as this run does.</summary>
    void LoadScript(IDatabase db)
    {
        var sha = (string?)db.Execute("SCRIPT", "LOAD", Library.Links.Script);
        if (sha != Library.Links.Sha)
            throw new InvalidOperationException($"{Describe()} answered SCRIPT LOAD with {sha}, not the script's SHA-1 {Library.Links.Sha}");
    }

    /// <summary>Whether <paramref name="key"/> matches a suite's pattern: a whole name, or a prefix followed by <c>*</c>.</summary>
    public static bool Matches(string pattern, string key) =>
        pattern.EndsWith('*') ? key.StartsWith(pattern[..^1], StringComparison.Ordinal) : key == pattern;

    public void Dispose()
    {
        Release();
        signals.ForEach(s => s.Dispose());
        Connection.Dispose();
        if (process is not null) ServerProcesses.Stop(process);
        process = null;
    }
}

/// <summary>
/// The disposable servers' processes, stopped however the run ends: on Dispose, at exit, and on
/// SIGINT, SIGTERM or SIGQUIT, which end a .NET process without raising ProcessExit (a SIGTERM to
/// the harness used to leave its servers running). A launcher (dotnet tool run) and the server it
/// starts are stopped together.
/// </summary>
static partial class ServerProcesses
{
    /// <summary>Each live server's process, with the private folder of its Unix socket and the host of its own, where it has them.</summary>
    static readonly System.Collections.Concurrent.ConcurrentDictionary<Process, (string? Folder, Network? Network)> live = new();
    /// <summary>Held so that the registrations live as long as the process.</summary>
    static readonly PosixSignalRegistration[] signals;

    static ServerProcesses()
    {
        AppDomain.CurrentDomain.ProcessExit += (_, _) => StopAll();
        signals = [.. AtEnd.Signals.Select(s => PosixSignalRegistration.Create(s, OnSignal))];
    }

    static void OnSignal(PosixSignalContext context)
    {
        // Marked first: the run fails as its servers go, and waits for this handler to end the process.
        RedisServer.Interrupting();
        StopAll();
        RedisServer.Exit(context);
    }

    /// <summary>Starts a server's process with <paramref name="args"/>, stopped with the run, with the folder of its socket and its host.</summary>
    public static Process Launch(List<string> args, string root, string? folder, Network? network)
    {
        var process = Process.Start(new ProcessStartInfo(args[0], args.Skip(1))
        { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false, WorkingDirectory = root })!;
        // Whatever it writes is read, so that it never blocks on a full pipe.
        process.OutputDataReceived += (_, _) => { };
        process.BeginOutputReadLine();
        live[process] = (folder, network);
        return process;
    }

    /// <summary>Starts a server that has stopped again, keeping the folder of its socket and its host.</summary>
    public static Process Relaunch(Process stopped, List<string> args, string root)
    {
        live.TryRemove(stopped, out var owned);
        return Launch(args, root, owned.Folder, owned.Network);
    }

    [LibraryImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static partial int Kill(int pid, int signal);

    /// <summary>
    /// Sends a server SIGKILL, as a crash ends it, or SIGTERM, which it answers by closing its
    /// files and exiting: the server and every process it started (a launcher such as `dotnet tool
    /// run` runs the server as its child), children first.
    /// </summary>
    public static void Signal(Process process, bool kill)
    {
        foreach (var pid in Descendants(process.Id).Append(process.Id))
            if (Kill(pid, kill ? 9 : 15) != 0 && pid == process.Id)
                throw new InvalidOperationException($"cannot signal the server's process {pid}: errno {Marshal.GetLastPInvokeError()}");
    }

    /// <summary>The processes below <paramref name="pid"/>, deepest first, from each process's parent in /proc.</summary>
    static IEnumerable<int> Descendants(int pid)
    {
        var parents = new Dictionary<int, int>();
        foreach (var dir in Directory.EnumerateDirectories("/proc"))
        {
            if (!int.TryParse(Path.GetFileName(dir), out var child)) continue;
            // /proc/<pid>/stat: "pid (name) state ppid …", the name in parentheses may hold spaces.
            try
            {
                var stat = File.ReadAllText(Path.Combine(dir, "stat"));
                parents[child] = int.Parse(stat[(stat.LastIndexOf(')') + 2)..].Split(' ')[1], System.Globalization.CultureInfo.InvariantCulture);
            }
            catch (IOException) { }
        }
        IEnumerable<int> Below(int parent) => parents.Where(p => p.Value == parent).SelectMany(p => Below(p.Key).Append(p.Key));
        return Below(pid).ToList();
    }

    /// <summary>Stops <paramref name="process"/> and removes its socket's folder and its host.</summary>
    public static void Stop(Process process)
    {
        live.TryRemove(process, out var owned);
        var (folder, network) = owned;
        try
        {
            if (process.HasExited) return;
            process.Kill(entireProcessTree: true);
            process.WaitForExit();
        }
        catch (InvalidOperationException) { }
        finally
        {
            if (folder is not null && Directory.Exists(folder)) Directory.Delete(folder, recursive: true);
            network?.Dispose();
        }
    }

    static void StopAll()
    {
        foreach (var process in live.Keys) Stop(process);
    }
}

using System.Buffers.Text;
using System.Globalization;
using System.Text;
using StackExchange.Redis;

namespace RedisVSDoublets;

/// <summary>
/// A command by name, as a suite's codec builds it. <paramref name="Bytes"/> asks for a string
/// reply as bytes (a payload's value), where a client would otherwise decode it as text.
/// </summary>
internal readonly record struct Command(string Name, object[] Args, bool Bytes = false)
{
    /// <summary>The bytes its name and arguments carry (a number as its decimal digits), as the
    /// pipeline windows count them.</summary>
    public long Size()
    {
        long size = Name.Length;
        foreach (var arg in Args)
            size += arg switch
            {
                byte[] bytes => bytes.Length,
                string text => System.Text.Encoding.UTF8.GetByteCount(text),
                ulong n => Digits(n),
                long n => n < 0 ? 1 + Digits((ulong)-n) : Digits((ulong)n),
                int n => n < 0 ? 1 + Digits((ulong)-(long)n) : Digits((ulong)n),
                _ => Convert.ToString(arg, System.Globalization.CultureInfo.InvariantCulture)?.Length ?? 0,
            };
        return size;
    }

    static int Digits(ulong n)
    {
        var digits = 1;
        while (n >= 10) (n, digits) = (n / 10, digits + 1);
        return digits;
    }
}

/// <summary>
/// One reply, whatever client read it: StackExchange.Redis's RedisResult, or the plain objects
/// FreeRedis and CSRedisCore return (long, string, byte[], object[], null). Read in place: no
/// reply is copied into another form.
/// </summary>
internal readonly struct Reply(object? value)
{
    public bool IsNull => value switch
    {
        null => true,
        RedisResult r => r.IsNull,
        _ => false,
    };

    /// <summary>A status reply (OK), which some clients return as the text it says.</summary>
    public bool IsOk => value switch
    {
        RedisResult r => r.Resp2Type == ResultType.SimpleString && (string?)r == "OK",
        string s => s == "OK",
        _ => false,
    };

    /// <summary>A whole number: an integer reply, or the decimal text of one.</summary>
    public ulong Number() => value switch
    {
        RedisResult r => r.Resp2Type switch
        {
            ResultType.Integer or ResultType.BulkString or ResultType.SimpleString => (ulong)(long)r,
            _ => throw new InvalidOperationException($"expected a number, got {r.Resp2Type}: {r}"),
        },
        long n when n >= 0 => (ulong)n,
        string s when ulong.TryParse(s, NumberStyles.None, CultureInfo.InvariantCulture, out var n) => n,
        byte[] b when Utf8Parser.TryParse(b, out ulong n, out var used) && used == b.Length => n,
        _ => throw new InvalidOperationException($"expected a number, got {Describe()}"),
    };

    /// <summary>The bytes of a string reply (a client that decoded them as text gives them back as UTF-8).</summary>
    public ReadOnlySpan<byte> Bytes() => value switch
    {
        RedisResult r => ((ReadOnlyMemory<byte>)(RedisValue)r).Span,
        byte[] b => b,
        string s => Encoding.UTF8.GetBytes(s),
        _ => throw new InvalidOperationException($"expected a string, got {Describe()}"),
    };

    public int Count => value switch
    {
        RedisResult r => r.Length,
        object[] items => items.Length,
        _ => throw new InvalidOperationException($"expected an array, got {Describe()}"),
    };

    public Reply this[int k] => value switch
    {
        RedisResult r => new(r[k]),
        object[] items => new(items[k]),
        _ => throw new InvalidOperationException($"expected an array, got {Describe()}"),
    };

    public string Describe() => value switch
    {
        null => "nil",
        byte[] b => $"{b.Length} bytes",
        object[] items => $"an array of {items.Length}",
        var v => $"{v.GetType().Name} {v}",
    };

    public override string ToString() => Describe();
}

/// <summary>
/// A Redis client library as a suite's store drives it: one command per round trip, or a batch of
/// commands pipelined or in MULTI/EXEC, every reply read before it returns.
/// </summary>
internal interface IRedisClient : IDisposable
{
    /// <summary>The package and version, as results record it.</summary>
    string Name { get; }
    Reply Call(in Command command);
    void Batch(ReadOnlySpan<Command> commands, bool atomic, Span<Reply> replies);

    /// <summary>
    /// <see cref="Call"/> for a caller that awaits: a client whose natural concurrency is
    /// asynchronous (StackExchange.Redis's multiplexer) overrides it; the others complete it
    /// before returning, on their caller's thread.
    /// </summary>
    ValueTask<Reply> CallAsync(Command command) => ValueTask.FromResult(Call(command));

    /// <summary>
    /// Connects again after its server restarted (a durable server, after each cell): a client
    /// whose connections the restart closed and that would fail its next calls on them opens new
    /// ones; StackExchange.Redis's multiplexer, which the server itself connects again, needs nothing.
    /// </summary>
    void Reconnect() { }

    /// <summary><see cref="Batch"/> for a caller that awaits, over the first <paramref name="count"/> commands.</summary>
    ValueTask BatchAsync(Command[] commands, int count, bool atomic, Reply[] replies)
    {
        Batch(commands.AsSpan(0, count), atomic, replies.AsSpan(0, count));
        return ValueTask.CompletedTask;
    }
}

/// <summary>Where a client connects: the server's address and database, and its user and password if any (the password never printed).</summary>
internal sealed record Endpoint(string Host, int Port, int Database, string? User, string? Password);

/// <summary>The clients the spec names, by id.</summary>
internal static class Clients
{
    public static IRedisClient Open(string id, RedisServer server) => id switch
    {
        "StackExchange.Redis" => new StackExchangeClient(server.Connection.GetDatabase()),
        "FreeRedis" => new FreeRedisClient(server.Endpoint),
        "CSRedisCore" => new CSRedisCoreClient(server.Endpoint),
        _ => throw new SpecException($"spec clients: no client \"{id}\" is implemented (known: StackExchange.Redis, FreeRedis, CSRedisCore)"),
    };

    /// <summary>
    /// K concurrent users of a client, each as the library is meant to be shared: StackExchange.Redis
    /// by tasks awaiting calls on the server's one multiplexer, FreeRedis by threads sharing one
    /// client and its pool of connections, CSRedisCore by threads with a connection each (what its
    /// pool would hand out; the pooled CSRedisClient cannot call a command by name).
    /// </summary>
    public sealed class Concurrent(string id, RedisServer server) : IDisposable
    {
        readonly List<IRedisClient> opened = [];

        /// <summary>Whether the users are tasks that await (otherwise threads that block).</summary>
        public bool Tasks => id == "StackExchange.Redis";

        /// <summary>User <paramref name="c"/>'s client: the shared one, or its own, opened once and kept for later cells.</summary>
        public IRedisClient For(int c)
        {
            var k = id == "CSRedisCore" ? c : 0;
            while (opened.Count <= k) opened.Add(Open(id, server));
            return opened[k];
        }

        public void Dispose() => opened.ForEach(client => client.Dispose());
    }

    /// <summary>"FreeRedis 1.5.5": the client's package and the version this build uses.</summary>
    public static string Describe(string id) => $"{id} {Version(id switch
    {
        "StackExchange.Redis" => typeof(IDatabase),
        "FreeRedis" => typeof(FreeRedis.RedisClient),
        "CSRedisCore" => typeof(CSRedis.RedisClient),
        _ => throw new SpecException($"spec clients: no client \"{id}\" is implemented (known: StackExchange.Redis, FreeRedis, CSRedisCore)"),
    })}";

    /// <summary>A package's version as published (its assembly version stays at x.0.0).</summary>
    static string Version(Type type) =>
        System.Reflection.CustomAttributeExtensions.GetCustomAttribute<System.Reflection.AssemblyInformationalVersionAttribute>(type.Assembly)
            ?.InformationalVersion.Split('+')[0] ?? "unknown";

    /// <summary>Arguments as the text of a command (numbers in the invariant culture).</summary>
    internal static string Text(object arg) => arg switch
    {
        string s => s,
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        _ => arg.ToString() ?? "",
    };
}

/// <summary>
/// StackExchange.Redis: every call goes over one multiplexed connection (IDatabase.Execute); an
/// IBatch writes its commands together when executed, an ITransaction wraps them in MULTI/EXEC.
/// </summary>
internal sealed class StackExchangeClient(IDatabase db) : IRedisClient
{
    public string Name => Clients.Describe("StackExchange.Redis");

    public Reply Call(in Command command) => new(db.Execute(command.Name, command.Args));

    public void Batch(ReadOnlySpan<Command> commands, bool atomic, Span<Reply> replies)
    {
        var sent = new Task<RedisResult>[commands.Length];
        if (atomic)
        {
            var transaction = db.CreateTransaction();
            for (var k = 0; k < commands.Length; k++) sent[k] = transaction.ExecuteAsync(commands[k].Name, commands[k].Args);
            if (!transaction.Execute()) throw new InvalidOperationException("the transaction was not committed");
        }
        else
        {
            var batch = db.CreateBatch();
            for (var k = 0; k < commands.Length; k++) sent[k] = batch.ExecuteAsync(commands[k].Name, commands[k].Args);
            batch.Execute();
        }
        for (var k = 0; k < commands.Length; k++) replies[k] = new(sent[k].GetAwaiter().GetResult());
    }

    public async ValueTask<Reply> CallAsync(Command command) => new(await db.ExecuteAsync(command.Name, command.Args));

    public async ValueTask BatchAsync(Command[] commands, int count, bool atomic, Reply[] replies)
    {
        var sent = new Task<RedisResult>[count];
        if (atomic)
        {
            var transaction = db.CreateTransaction();
            for (var k = 0; k < count; k++) sent[k] = transaction.ExecuteAsync(commands[k].Name, commands[k].Args);
            if (!await transaction.ExecuteAsync()) throw new InvalidOperationException("the transaction was not committed");
        }
        else
        {
            var batch = db.CreateBatch();
            for (var k = 0; k < count; k++) sent[k] = batch.ExecuteAsync(commands[k].Name, commands[k].Args);
            batch.Execute();
        }
        for (var k = 0; k < count; k++) replies[k] = new(await sent[k]);
    }

    /// <summary>The multiplexer belongs to the server.</summary>
    public void Dispose() { }
}

/// <summary>
/// FreeRedis: a pool of connections, a call borrowing one for its round trip (RedisClient.Call);
/// StartPipe borrows one, queues the commands and writes them together at EndPipe; Multi does the
/// same inside MULTI/EXEC.
/// </summary>
internal sealed class FreeRedisClient : IRedisClient
{
    readonly string connection;
    FreeRedis.RedisClient client;

    public FreeRedisClient(Endpoint at)
    {
        connection = $"{at.Host}:{at.Port},database={at.Database}{(at.User is { } u ? $",user={u}" : "")}{(at.Password is { } p ? $",password={p}" : "")}";
        client = new(connection);
    }

    /// <summary>Its pool keeps connections a server's restart closed: a new pool replaces it.</summary>
    public void Reconnect()
    {
        client.Dispose();
        client = new(connection);
    }

    public string Name => Clients.Describe("FreeRedis");

    static FreeRedis.CommandPacket Packet(in Command command) =>
        new FreeRedis.CommandPacket(command.Name).Input(command.Args).FlagReadbytes(command.Bytes);

    public Reply Call(in Command command) => new(client.Call(Packet(command)));

    public void Batch(ReadOnlySpan<Command> commands, bool atomic, Span<Reply> replies)
    {
        object[] results;
        if (atomic)
        {
            using var transaction = client.Multi();
            foreach (var command in commands) transaction.Call(Packet(command));
            results = transaction.Exec();
        }
        else
        {
            using var pipe = client.StartPipe();
            foreach (var command in commands) pipe.Call(Packet(command));
            results = pipe.EndPipe();
        }
        Fill(results, replies);
    }

    internal static void Fill(object[] results, Span<Reply> replies)
    {
        if (results.Length != replies.Length) throw new InvalidOperationException($"{results.Length} replies to {replies.Length} commands");
        for (var k = 0; k < results.Length; k++) replies[k] = new(results[k]);
    }

    public void Dispose() => client.Dispose();
}

/// <summary>
/// CSRedisCore's RedisClient, one connection: a call is one round trip (Call sends text, so a
/// value of bytes goes by Set and comes back by GetBytes); StartPipe queues the commands and
/// EndPipe writes them together; Multi and Exec wrap them in MULTI/EXEC. Its pooled CSRedisClient
/// has neither calls by name nor MULTI/EXEC.
/// </summary>
internal sealed class CSRedisCoreClient : IRedisClient
{
    readonly Endpoint at;
    CSRedis.RedisClient client;

    public CSRedisCoreClient(Endpoint at) => (this.at, client) = (at, Connect(at));

    static CSRedis.RedisClient Connect(Endpoint at)
    {
        var client = new CSRedis.RedisClient(at.Host, at.Port);
        // Its Auth takes a password alone: a user of an ACL authenticates by the two-argument AUTH.
        if (at.User is { } user) client.Call("AUTH", user, at.Password ?? "");
        else if (at.Password is { } password) client.Auth(password);
        if (at.Database != 0) client.Select(at.Database);
        return client;
    }

    /// <summary>Its one connection is closed by a server's restart: a new one replaces it.</summary>
    public void Reconnect()
    {
        client.Dispose();
        client = Connect(at);
    }

    public string Name => Clients.Describe("CSRedisCore");

    object? Send(in Command command)
    {
        if (command.Bytes) return client.GetBytes(Clients.Text(command.Args[0]));
        if (command.Name == "SET" && command.Args is [var key, byte[] value]) return client.Set(Clients.Text(key), value);
        return client.Call(command.Name, [.. command.Args.Select(Clients.Text)]);
    }

    public Reply Call(in Command command) => new(Send(command));

    public void Batch(ReadOnlySpan<Command> commands, bool atomic, Span<Reply> replies)
    {
        if (atomic) client.Multi();
        else client.StartPipe();
        foreach (var command in commands) Send(command);
        FreeRedisClient.Fill(atomic ? client.Exec() : client.EndPipe(), replies);
    }

    public void Dispose() => client.Dispose();
}

using System.Text.Json;
using System.Text.Json.Serialization;

namespace RedisVSDoublets;

/// <summary>What a term is: <c>i</c>, a size (its value the size's index in the spec's order) or a whole number.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<TermKind>))]
internal enum TermKind { I, Size, Number }

/// <summary>One term of an expression, with its sign.</summary>
internal sealed record Term(int Sign, TermKind Kind, ulong Value);

/// <summary>
/// The spec's small arithmetic (sums and differences of i, the sizes and whole numbers) as the
/// Rust side parsed and checked it: this side only evaluates it.
/// </summary>
internal sealed class Expr(IReadOnlyList<Term> terms)
{
    /// <summary>The value for these sizes and i, in 128 bits: a few terms of up to 2^64 never overflow it.</summary>
    public Int128 Eval(ulong[] sizes, Int128? i)
    {
        Int128 sum = 0;
        foreach (var (sign, kind, value) in terms)
            sum += sign * kind switch
            {
                TermKind.I => i ?? throw new InvalidOperationException("i is used only inside a for range"),
                TermKind.Size => (Int128)sizes[value],
                TermKind.Number => (Int128)value,
                _ => throw new InvalidOperationException($"an unknown term {kind}"),
            };
        return sum;
    }

    /// <summary>An expression as the Rust side hands it over: its terms.</summary>
    public sealed class FromTerms : JsonConverter<Expr>
    {
        public override Expr Read(ref Utf8JsonReader reader, Type type, JsonSerializerOptions options) =>
            new(JsonSerializer.Deserialize<List<Term>>(ref reader, options)!);

        public override void Write(Utf8JsonWriter writer, Expr value, JsonSerializerOptions options) =>
            throw new NotSupportedException("the spec comes from the Rust side");
    }
}

/// <summary><c>from to to</c> (ascending) or <c>from down to to</c> (descending), both ends included.</summary>
internal sealed record Interval(Expr From, Expr To, bool Descending, string Text)
{
    (Int128 Low, Int128 High) Bounds(ulong[] sizes)
    {
        var (first, last) = (From.Eval(sizes, null), To.Eval(sizes, null));
        var (low, high) = Descending ? (last, first) : (first, last);
        if (low > high) throw new SpecException($"the range {Text} is empty ({first} to {last})");
        return (low, high);
    }

    /// <summary>How many values the range has, without building them.</summary>
    public UInt128 Count(ulong[] sizes)
    {
        var (low, high) = Bounds(sizes);
        return (UInt128)(high - low) + 1;
    }

    public List<Int128> Values(ulong[] sizes)
    {
        var (low, high) = Bounds(sizes);
        var values = new List<Int128>((int)(high - low + 1));
        for (var v = low; v <= high; v++) values.Add(v);
        if (Descending) values.Reverse();
        return values;
    }

    public override string ToString() => Text;
}

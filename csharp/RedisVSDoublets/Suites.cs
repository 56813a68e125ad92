namespace RedisVSDoublets;

/// <summary>Work done for a suite, whichever it is: <see cref="Suites.Visit"/> hands it the suite's
/// types (its requests, what they find, its model and its codec for the servers).</summary>
internal interface ISuiteWork
{
    /// <summary>For a suite only servers run.</summary>
    void Servers<TRequest, TFound, TModel, TCodec>(Suite suite)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>, new()
        where TCodec : struct, IRedisCodec<TRequest, TFound>;

    /// <summary>For a suite doublets runs too: <paramref name="doublets"/> makes its store of a
    /// layout, on the heap (no folder) or on files in the folder given, named for its backend.</summary>
    void Doublets<TRequest, TFound, TModel, TCodec>(Suite suite, Func<Layout, DurableFolder?, string, IStore<TRequest, TFound>> doublets)
        where TRequest : IRequest<TRequest, TFound>
        where TFound : IComparable<TFound>
        where TModel : IModel<TRequest, TFound>, new()
        where TCodec : struct, IRedisCodec<TRequest, TFound>;
}

/// <summary>The suites this harness implements, by the spec's id: the one place a suite's id
/// meets its types (the Rust side's <c>suites::visit</c>).</summary>
internal static class Suites
{
    public static void Visit(Spec spec, Suite suite, ISuiteWork work)
    {
        switch (suite.Id)
        {
            case "links":
                work.Doublets<LinkRequest, Link, LinksModel, LinksCodec>(suite, (layout, folder, name) => new DoubletsLinks(layout, folder, name));
                break;
            case "typical":
                work.Doublets<UsageRequest, Entry, UsageModel, UsageCodec>(suite, (layout, folder, name) => new DoubletsUsage(layout, folder, name));
                break;
            case "payload":
                work.Servers<PayloadRequest, Stored, PayloadModel, PayloadCodec>(suite);
                break;
            default:
                throw new SpecException($"{spec.Path}: no store implements the suite \"{suite.Id}\" (known: links, typical, payload)");
        }
    }
}

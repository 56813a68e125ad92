//! A C ABI over the doublets 0.18 stores, so the C# harness runs the same core as the Rust benches.
//!
//! Every function takes the handle `doublets_new` returned. Results come back through out
//! pointers; the return value is a [`Status`]. Queries always have three parts (index, source,
//! target) with `any` for "anything": two-part queries are unreliable in 0.18. Enumeration calls a
//! function pointer per link, so nothing is allocated per call. Panics never cross the boundary.
//!
//! The caller must not create duplicate (source, target) pairs: they corrupt both stores' indexes.

use std::{ffi::c_void, panic::AssertUnwindSafe, path::Path};

use doublets::{
    data::{Flow, LinksConstants},
    Doublets, Links,
};
use redis_vs_doublets::{
    blocks::{self, Split, United},
    durable::{self, Folder, StoreFolder},
    network::{self, Netns},
};

/// A store of either layout, on the heap or on files. One exists per store and lives in a Box,
/// so the size difference of the variants costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Inner {
    United(United),
    Split(Split),
}

/// A store and, for a durable one, its folder and how it was opened (declared after the store,
/// so the folder goes once nothing maps its files).
pub struct Store {
    inner: Inner,
    files: Option<(StoreFolder, i32, i32)>,
}

macro_rules! with_store {
    ($store:expr, $s:ident => $body:expr) => {
        match $store {
            Store {
                inner: Inner::United($s),
                ..
            } => $body,
            Store {
                inner: Inner::Split($s),
                ..
            } => $body,
        }
    };
}

/// Opens a store of `layout` (0 united, 1 split) with external references where `external` is
/// non-zero: on the heap, or mapped from files in `folder`, as the Rust benches' stores are.
fn open(layout: i32, external: i32, folder: Option<&Path>) -> anyhow::Result<Inner> {
    let constants = if external != 0 {
        LinksConstants::external()
    } else {
        LinksConstants::internal()
    };
    Ok(match layout {
        0 => Inner::United(blocks::united(folder, constants)?.0),
        1 => Inner::Split(blocks::split(folder, constants)?.0),
        _ => anyhow::bail!("unknown layout {layout}"),
    })
}

/// What every call returns.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok = 0,
    /// The link does not exist.
    NotFound = 1,
    /// Any other error of the store (e.g. out of memory).
    Failed = 2,
    /// A null handle or pointer, or an unknown layout.
    BadArgument = 3,
    /// The store panicked; the handle must not be used again.
    Panicked = 4,
}

fn guard(f: impl FnOnce() -> Status) -> Status {
    std::panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or(Status::Panicked)
}

fn status<T>(result: Result<T, doublets::Error<u64>>, out: *mut T) -> Status {
    match result {
        Ok(value) => {
            if !out.is_null() {
                // SAFETY: the caller passes a valid pointer or null.
                unsafe { *out = value };
            }
            Status::Ok
        }
        Err(doublets::Error::NotExists(_)) => Status::NotFound,
        Err(_) => Status::Failed,
    }
}

/// Creates a store: `layout` 0 united, 1 split; `external` non-zero reserves the upper half of the
/// numbers for raw values (external references). Writes the handle to `out`.
///
/// # Safety
/// `out` must be a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn doublets_new(layout: i32, external: i32, out: *mut *mut Store) -> Status {
    if out.is_null() || !(0..=1).contains(&layout) {
        return Status::BadArgument;
    }
    let made = || open(layout, external, None).map(|inner| Store { inner, files: None });
    // SAFETY: checked non-null above.
    guard(|| unsafe { hand_out(made(), out) })
}

/// Writes a new store's handle to `out`: `Ok`, or `Failed` where the store could not be made.
///
/// # Safety
/// `out` must be a valid pointer.
unsafe fn hand_out(store: anyhow::Result<Store>, out: *mut *mut Store) -> Status {
    match store {
        Ok(store) => {
            // SAFETY: the caller passes a valid pointer.
            unsafe { *out = Box::into_raw(Box::new(store)) };
            Status::Ok
        }
        Err(_) => Status::Failed,
    }
}

/// The run's folder for durable stores ([`redis_vs_doublets::durable::Folder`]), as the Rust
/// bench makes it from `variables`, lines `NAME=value` of the spec's durable variables that are
/// set (where the files go, whether tmpfs is allowed, how stores stop before a restart), refused
/// as the Rust bench refuses it, and when it has less free space than the stores of the families
/// named in `families` (comma-separated ids) need at `sizes` (the spec's sizes in order). The checkout at `root` gives the spec. Writes the handle to `folder` and what
/// the folder lies on (or the refusal) as [`answer`] writes it. Freed by `durable_folder_free`.
///
/// # Safety
/// The texts must point at their lengths of UTF-8, `sizes` at `sizes_len` numbers, `folder` be
/// valid, `out` point at `capacity` writable bytes and `written` be valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn durable_folder(
    root: *const u8,
    root_len: usize,
    variables: *const u8,
    variables_len: usize,
    families: *const u8,
    families_len: usize,
    sizes: *const u64,
    sizes_len: usize,
    folder: *mut *mut Folder,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    if folder.is_null() || out.is_null() || written.is_null() || sizes.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        let made = (|| {
            // SAFETY: the caller passes the texts' and the sizes' lengths.
            let (root, variables, families, sizes) = unsafe {
                (
                    text(root, root_len)?,
                    text(variables, variables_len)?,
                    text(families, families_len)?,
                    std::slice::from_raw_parts(sizes, sizes_len),
                )
            };
            let spec = redis_vs_doublets::checked(redis_vs_doublets::spec::Spec::load(
                &Path::new(root).join(redis_vs_doublets::spec::SPEC_PATH),
            ))?;
            let families: Vec<String> = families.split(',').map(String::from).collect();
            let needed = durable::needed(&spec, &families, sizes);
            let get = |var: &str| {
                variables.lines().find_map(|line| {
                    let (name, value) = line.split_once('=')?;
                    (name == var).then(|| value.to_string())
                })
            };
            Folder::new(&spec, get, needed)
        })();
        let described = made.map(|made| {
            let text = made.describe.clone();
            // SAFETY: checked non-null above.
            unsafe { *folder = Box::into_raw(Box::new(made)) };
            text
        });
        // SAFETY: as the caller passes them.
        unsafe { answer(described, out, capacity, written) }
    })
}

/// Removes the run's folder for durable stores, with whatever is left in it.
///
/// # Safety
/// `folder` must come from `durable_folder` and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn durable_folder_free(folder: *mut Folder) {
    // SAFETY: the caller gives back a handle of ours exactly once.
    unsafe { free(folder) }
}

/// The path of the run's folder for durable stores, as [`answer`] writes it.
///
/// # Safety
/// `folder` must be a live handle from `durable_folder`, `out` point at `capacity` writable bytes
/// and `written` be valid.
#[no_mangle]
pub unsafe extern "C" fn durable_folder_path(
    folder: *const Folder,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    let Some(folder) = (unsafe { folder.as_ref() }) else {
        return Status::BadArgument;
    };
    if out.is_null() || written.is_null() {
        return Status::BadArgument;
    }
    let path = folder.path().display().to_string();
    // SAFETY: as the caller passes them.
    guard(|| unsafe { answer(Ok(path), out, capacity, written) })
}

/// How durable stores stop before each restart ([`durable::Stop`]): 0 closed (a server gets
/// SIGTERM), 1 killed (SIGKILL); -1 for a null handle.
///
/// # Safety
/// `folder` must be a live handle from `durable_folder` or null.
#[no_mangle]
pub unsafe extern "C" fn durable_folder_kills(folder: *const Folder) -> i32 {
    // SAFETY: the caller passes a live handle of ours or null.
    match unsafe { folder.as_ref() } {
        Some(folder) => i32::from(folder.stop == durable::Stop::Kill),
        None => -1,
    }
}

/// For an interrupt: removes every run folder for durable stores that exists now.
#[no_mangle]
pub extern "C" fn durable_remove_all() {
    durable::remove_all();
}

/// A host of its own for the server `name` whose spec gives a round trip of `round_trip_us`
/// ([`network::Netns`]), made as the Rust bench makes it (root only): a network namespace, its
/// veth pair and a relay at the host end that reaches the namespace's `port`. Writes the handle
/// to `network` and, as [`answer`] writes them, three lines: the command prefix that runs a
/// program inside the namespace, the address the server binds there and the address the
/// harness connects to (or the refusal). Freed by `network_free`.
///
/// # Safety
/// `name` must point at `name_len` bytes of UTF-8, `network` and `written` be valid and `out`
/// point at `capacity` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn network_open(
    name: *const u8,
    name_len: usize,
    round_trip_us: u64,
    port: u16,
    network: *mut *mut Netns,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    if network.is_null() || out.is_null() || written.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        // SAFETY: the caller passes the name's length.
        let made = unsafe { text(name, name_len) }
            .and_then(|name| Netns::create(name, round_trip_us, port))
            .map(|made| {
                let text = format!(
                    "{}\n{}\n{}",
                    made.exec(&[]).join(" "),
                    made.server,
                    made.host
                );
                // SAFETY: checked non-null above.
                unsafe { *network = Box::into_raw(Box::new(made)) };
                text
            });
        // SAFETY: as the caller passes them.
        unsafe { answer(made, out, capacity, written) }
    })
}

/// The network's `network` line for the server `name` at `url` ([`Netns::measured`]), as
/// [`answer`] writes it.
///
/// # Safety
/// `network` must be a live handle from `network_open`, the texts point at their lengths of
/// UTF-8, `out` at `capacity` writable bytes and `written` be valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn network_describe(
    network: *const Netns,
    name: *const u8,
    name_len: usize,
    url: *const u8,
    url_len: usize,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    let Some(network) = (unsafe { network.as_ref() }) else {
        return Status::BadArgument;
    };
    if out.is_null() || written.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        let described = (|| {
            // SAFETY: the caller passes the texts' lengths.
            let (name, url) = unsafe { (text(name, name_len)?, text(url, url_len)?) };
            network.measured(name, url)
        })();
        // SAFETY: as the caller passes them.
        unsafe { answer(described, out, capacity, written) }
    })
}

/// Removes a host made by `network_open`: its relay, namespace and pair.
///
/// # Safety
/// `network` must come from `network_open` and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn network_free(network: *mut Netns) {
    // SAFETY: the caller gives back a handle of ours exactly once.
    unsafe { free(network) }
}

/// For an interrupt: removes every namespace this process made.
#[no_mangle]
pub extern "C" fn network_remove_all() {
    network::remove_all();
}

/// Creates a durable store as `doublets_new` does, its memory mapped from files in a folder of
/// its own named `name` in the run's `folder`, removed when the store is freed.
///
/// # Safety
/// `folder` must be a live handle from `durable_folder`, `name` point at `name_len` bytes of
/// UTF-8 and `out` be valid.
#[no_mangle]
pub unsafe extern "C" fn doublets_open(
    layout: i32,
    external: i32,
    folder: *const Folder,
    name: *const u8,
    name_len: usize,
    out: *mut *mut Store,
) -> Status {
    if out.is_null() || !(0..=1).contains(&layout) {
        return Status::BadArgument;
    }
    // SAFETY: the caller passes a live handle of ours or null.
    let Some(folder) = (unsafe { folder.as_ref() }) else {
        return Status::BadArgument;
    };
    let made = || {
        // SAFETY: the caller passes `name_len` readable bytes.
        let files = folder.store(unsafe { text(name, name_len)? })?;
        let inner = open(layout, external, Some(files.path()))?;
        anyhow::Ok(Store {
            inner,
            files: Some((files, layout, external)),
        })
    };
    // SAFETY: checked non-null above.
    guard(|| unsafe { hand_out(made(), out) })
}

/// Closes a durable store and opens it again from its files, as the Rust benches' stores do
/// after each cell ([`redis_vs_doublets::durable::sync`], then the files opened again). `NotFound`
/// for a store on the heap, which keeps nothing; `Failed` when the files cannot be synced or
/// opened.
///
/// # Safety
/// `store` must be a live handle.
#[no_mangle]
pub unsafe extern "C" fn doublets_restart(store: *mut Store) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    unsafe {
        with_handle(store, |s| {
            let Some((folder, layout, external)) = &s.files else {
                return Status::NotFound;
            };
            let reopened = durable::sync(folder.path())
                .and_then(|()| open(*layout, *external, Some(folder.path())));
            match reopened {
                Ok(inner) => {
                    s.inner = inner;
                    Status::Ok
                }
                Err(_) => Status::Failed,
            }
        })
    }
}

/// Frees a store.
///
/// # Safety
/// `store` must come from `doublets_new` and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn doublets_free(store: *mut Store) {
    // SAFETY: the caller gives back a handle of ours exactly once.
    unsafe { free(store) }
}

/// Frees a handle this library boxed; null is ignored.
///
/// # Safety
/// `handle` must be null or come from `Box::into_raw` here, and not be used afterwards.
unsafe fn free<T>(handle: *mut T) {
    if !handle.is_null() {
        // SAFETY: as the caller guarantees.
        drop(unsafe { Box::from_raw(handle) });
    }
}

/// Dereferences a handle.
unsafe fn handle<'a>(store: *mut Store) -> Option<&'a mut Store> {
    // SAFETY: the caller passes a handle of ours or null.
    unsafe { store.as_mut() }
}

/// Runs `f` on a live handle: a null handle is refused and a panic never crosses the boundary.
unsafe fn with_handle(store: *mut Store, f: impl FnOnce(&mut Store) -> Status) -> Status {
    match unsafe { handle(store) } {
        Some(s) => guard(|| f(s)),
        None => Status::BadArgument,
    }
}

/// Runs a read `f` on a live handle through a shared reference: several threads may read one
/// store at once (the C# load's readers do, under their own readers–writer lock), so a read never
/// makes the exclusive reference a write would.
unsafe fn with_shared(store: *const Store, f: impl FnOnce(&Store) -> Status) -> Status {
    // SAFETY: the caller passes a handle of ours or null.
    match unsafe { store.as_ref() } {
        Some(s) => guard(|| f(s)),
        None => Status::BadArgument,
    }
}

/// The `any` constant of the store, for queries.
///
/// # Safety
/// `store` must be a live handle.
#[no_mangle]
pub unsafe extern "C" fn doublets_any(store: *const Store) -> u64 {
    // SAFETY: the caller passes a handle of ours or null.
    unsafe { store.as_ref() }.map_or(0, |s| with_store!(s, s => s.constants().any))
}

/// Creates the point link (id, id, id).
///
/// # Safety
/// `store` must be a live handle; `id` valid or null.
#[no_mangle]
pub unsafe extern "C" fn doublets_create_point(store: *mut Store, id: *mut u64) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    unsafe { with_handle(store, |s| with_store!(s, s => status(s.create_point(), id))) }
}

/// Creates the link (id, source, target); (0, 0) makes an empty placeholder.
///
/// # Safety
/// `store` must be a live handle; `id` valid or null.
#[no_mangle]
pub unsafe extern "C" fn doublets_create_link(
    store: *mut Store,
    source: u64,
    target: u64,
    id: *mut u64,
) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    unsafe {
        with_handle(store, |s| {
            with_store!(s, s => if source == 0 && target == 0 {
                status(s.create(), id)
            } else {
                status(s.create_link(source, target), id)
            })
        })
    }
}

/// Sets a link's source and target.
///
/// # Safety
/// `store` must be a live handle.
#[no_mangle]
pub unsafe extern "C" fn doublets_update(
    store: *mut Store,
    id: u64,
    source: u64,
    target: u64,
) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    unsafe {
        with_handle(
            store,
            |s| with_store!(s, s => status(s.update(id, source, target), std::ptr::null_mut())),
        )
    }
}

/// Deletes a link (links that pointed at it keep their endpoints).
///
/// # Safety
/// `store` must be a live handle.
#[no_mangle]
pub unsafe extern "C" fn doublets_delete(store: *mut Store, id: u64) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    unsafe {
        with_handle(
            store,
            |s| with_store!(s, s => status(s.delete(id), std::ptr::null_mut())),
        )
    }
}

/// Reads a link's source and target.
///
/// # Safety
/// `store` must be a live handle; `source` and `target` valid.
#[no_mangle]
pub unsafe extern "C" fn doublets_get(
    store: *const Store,
    id: u64,
    source: *mut u64,
    target: *mut u64,
) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    unsafe {
        with_shared(store, |s| {
            if source.is_null() || target.is_null() {
                return Status::BadArgument;
            }
            match with_store!(s, s => s.get_link(id)) {
                Some(link) => {
                    // SAFETY: checked non-null above.
                    *source = link.source;
                    *target = link.target;
                    Status::Ok
                }
                None => Status::NotFound,
            }
        })
    }
}

/// The number of links matching [index, source, target].
///
/// # Safety
/// `store` must be a live handle; `count` valid.
#[no_mangle]
pub unsafe extern "C" fn doublets_count(
    store: *const Store,
    index: u64,
    source: u64,
    target: u64,
    count: *mut u64,
) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    unsafe {
        with_shared(store, |s| {
            status(
                Ok(with_store!(s, s => s.count_links(&[index, source, target]))),
                count,
            )
        })
    }
}

/// The id of the link from `source` to `target`, or 0.
///
/// # Safety
/// `store` must be a live handle; `id` valid.
#[no_mangle]
pub unsafe extern "C" fn doublets_search(
    store: *const Store,
    source: u64,
    target: u64,
    id: *mut u64,
) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    unsafe {
        with_shared(store, |s| {
            status(
                Ok(with_store!(s, s => s.search(source, target)).unwrap_or(0)),
                id,
            )
        })
    }
}

/// The digest of every link the store holds (the Rust stores' own, `digest::of_links`), which the
/// check after each cell compares with the one after the load.
///
/// # Safety
/// `store` must be a live handle; `digest` valid.
#[no_mangle]
pub unsafe extern "C" fn doublets_digest(store: *const Store, digest: *mut u64) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    unsafe {
        with_shared(store, |s| {
            status(
                Ok(with_store!(s, s => redis_vs_doublets::digest::of_links(s))),
                digest,
            )
        })
    }
}

/// Called for each link found; returns non-zero to go on, 0 to stop.
pub type EachCallback =
    unsafe extern "C" fn(context: *mut c_void, id: u64, source: u64, target: u64) -> i32;

/// Calls `callback` for every link matching [index, source, target].
///
/// # Safety
/// `store` must be a live handle; `callback` a valid function that does not unwind.
#[no_mangle]
pub unsafe extern "C" fn doublets_each(
    store: *const Store,
    index: u64,
    source: u64,
    target: u64,
    callback: Option<EachCallback>,
    context: *mut c_void,
) -> Status {
    let Some(callback) = callback else {
        return Status::BadArgument;
    };
    // SAFETY: the caller passes a live handle of ours or null.
    unsafe {
        with_shared(store, |s| {
            with_store!(s, s => s.each_by([index, source, target], |link| {
                // SAFETY: the caller's callback and context.
                let go_on = callback(context, link.index, link.source, link.target);
                if go_on != 0 { Flow::Continue } else { Flow::Break }
            }));
            Status::Ok
        })
    }
}

/// Marks the start of a run for the steal time [`provenance`] reports.
#[no_mangle]
pub extern "C" fn provenance_begin() {
    redis_vs_doublets::provenance::begin();
}

/// Calibrates the machine now and records it for [`provenance`], as the Rust bench does at a
/// round's start (`moment` 0) and end (1): the round trip to the server named `name` at the
/// redis:// `url` (none when `url_len` is 0) and the CPU loop. `Failed` when the server does not
/// answer.
///
/// # Safety
/// `name` and `url` must point at `name_len` and `url_len` bytes of UTF-8.
#[no_mangle]
pub unsafe extern "C" fn calibration_record(
    moment: i32,
    name: *const u8,
    name_len: usize,
    url: *const u8,
    url_len: usize,
) -> Status {
    use redis_vs_doublets::calibration::{self, Moment};
    let moment = match moment {
        0 => Moment::Start,
        1 => Moment::End,
        _ => return Status::BadArgument,
    };
    guard(|| {
        let text = |at: *const u8, len| {
            // SAFETY: the caller passes `len` readable bytes, or a length of 0.
            (len > 0 && !at.is_null())
                .then(|| std::str::from_utf8(unsafe { std::slice::from_raw_parts(at, len) }).ok())
                .flatten()
        };
        let server = text(name, name_len).zip(text(url, url_len));
        match calibration::record(moment, server) {
            Ok(()) => Status::Ok,
            Err(_) => Status::Failed,
        }
    })
}

/// The provenance every run shares, as the Rust bench writes it: `fingerprint: …` of the checkout
/// at `root` (its spec's paths, the spec counted by what it measures), then commit, date, CPU,
/// placement and the rest, one `key: value` a line, as UTF-8 into `out` (at most `capacity`
/// bytes; `written` gets the length the text needs). On an error the text is its message and the
/// status `Failed`; a text longer than `capacity` is cut and the status `BadArgument`.
///
/// # Safety
/// `root` must point at `root_len` bytes of UTF-8, `out` at `capacity` writable bytes and
/// `written` be a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn provenance(
    root: *const u8,
    root_len: usize,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    if root.is_null() || out.is_null() || written.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        // SAFETY: the caller passes `root_len` readable bytes.
        let root = unsafe { std::slice::from_raw_parts(root, root_len) };
        // SAFETY: as the caller passes them.
        unsafe { answer(provenance_text(root), out, capacity, written) }
    })
}

/// Writes `result`'s text (an error's message) as UTF-8 into `out`, at most `capacity` bytes,
/// `written` getting the length the text needs: `Ok`, `Failed` for an error, `BadArgument` for a
/// text cut short.
///
/// # Safety
/// `out` must point at `capacity` writable bytes and `written` be a valid pointer.
unsafe fn answer(
    result: anyhow::Result<String>,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    let (status, text) = match result {
        Ok(text) => (Status::Ok, text),
        Err(e) => (Status::Failed, format!("{e:#}")),
    };
    let bytes = text.as_bytes();
    let n = bytes.len().min(capacity);
    // SAFETY: the caller passes `capacity` writable bytes and a valid `written`.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), out, n);
        *written = bytes.len();
    }
    if n < bytes.len() {
        Status::BadArgument
    } else {
        status
    }
}

/// `len` bytes at `at` as UTF-8.
///
/// # Safety
/// `at` must point at `len` readable bytes (or `len` be 0).
unsafe fn text<'a>(at: *const u8, len: usize) -> anyhow::Result<&'a str> {
    if len == 0 {
        return Ok("");
    }
    anyhow::ensure!(!at.is_null(), "a null text");
    // SAFETY: the caller passes `len` readable bytes.
    Ok(std::str::from_utf8(unsafe {
        std::slice::from_raw_parts(at, len)
    })?)
}

/// The spec of the checkout at `root`, read and checked by the Rust side, for the estimates the
/// C# harness prints ([`spec_cell_seconds`], [`spec_load_seconds`]), so that both languages plan
/// a round alike. `Failed` with the refusal's text (file, line and column) as [`answer`] writes it.
/// Freed by `spec_free`.
///
/// # Safety
/// `root` must point at `root_len` bytes of UTF-8, `spec` be valid, `out` point at `capacity`
/// writable bytes and `written` be valid.
#[no_mangle]
pub unsafe extern "C" fn spec_open(
    root: *const u8,
    root_len: usize,
    spec: *mut *mut redis_vs_doublets::spec::Spec,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    if spec.is_null() || out.is_null() || written.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        // SAFETY: the caller passes `root_len` readable bytes.
        let loaded = unsafe { text(root, root_len) }.and_then(|root| {
            Ok(redis_vs_doublets::checked(
                redis_vs_doublets::spec::Spec::load(
                    &Path::new(root).join(redis_vs_doublets::spec::SPEC_PATH),
                ),
            )?)
        });
        let path = loaded.map(|loaded| {
            let path = loaded.path.clone();
            // SAFETY: checked non-null above.
            unsafe { *spec = Box::into_raw(Box::new(loaded)) };
            path
        });
        // SAFETY: as the caller passes them.
        unsafe { answer(path, out, capacity, written) }
    })
}

/// Reads one variable for the Rust side: writes its value as UTF-8 into `out` (at most `capacity`
/// bytes) and returns its length, or -1 when it is unset.
pub type VariableCallback = unsafe extern "C" fn(
    context: *mut c_void,
    name: *const u8,
    name_len: usize,
    out: *mut u8,
    capacity: usize,
) -> isize;

/// The spec as the C# harness runs it ([`redis_vs_doublets::handoff::for_csharp`]), as JSON: the
/// text at `spec` (or, where `spec_len` is 0, the file at `path`, which errors name), checked with
/// the run's variables, which `variable` reads, as the Rust bench checks them, against
/// `available` bytes of memory (0: what this machine has available now). The refusal, with the
/// file, line and column, otherwise; both as [`answer`] writes them.
///
/// # Safety
/// The texts must point at their lengths of UTF-8, `variable` be a valid function that does not
/// unwind, `out` point at `capacity` writable bytes and `written` be valid.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spec_handoff(
    path: *const u8,
    path_len: usize,
    spec: *const u8,
    spec_len: usize,
    variable: Option<VariableCallback>,
    context: *mut c_void,
    available: u64,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    let Some(variable) = variable else {
        return Status::BadArgument;
    };
    if out.is_null() || written.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        let get = |name: &str| {
            let mut value = vec![0u8; 256];
            loop {
                // SAFETY: the caller's callback and context; `value` has its length writable.
                let length = unsafe {
                    variable(
                        context,
                        name.as_ptr(),
                        name.len(),
                        value.as_mut_ptr(),
                        value.len(),
                    )
                };
                let length = usize::try_from(length).ok()?;
                if length <= value.len() {
                    value.truncate(length);
                    return Some(String::from_utf8_lossy(&value).into_owned());
                }
                value.resize(length, 0);
            }
        };
        let made = (|| {
            // SAFETY: the caller passes the texts' lengths.
            let (path, given) = unsafe { (text(path, path_len)?, text(spec, spec_len)?) };
            let read;
            let spec = if given.is_empty() {
                read = std::fs::read_to_string(path)
                    .map_err(|e| anyhow::anyhow!("{path}: cannot read the spec: {e}"))?;
                read.as_str()
            } else {
                given
            };
            let available = match available {
                0 => redis_vs_doublets::preflight::available_memory()?,
                given => given,
            };
            redis_vs_doublets::handoff::for_csharp(spec, path, get, available)
        })();
        // SAFETY: as the caller passes them.
        unsafe { answer(made, out, capacity, written) }
    })
}

/// Frees a spec from `spec_open`.
///
/// # Safety
/// `spec` must come from `spec_open` and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn spec_free(spec: *mut redis_vs_doublets::spec::Spec) {
    // SAFETY: the caller gives back a handle of ours exactly once.
    unsafe { free(spec) }
}

/// What one cell costs, as [`redis_vs_doublets::spec::Spec::cell_seconds`] counts it: the cell
/// of `operation` in `suite` on `backend` through `client` (empty: the store's own), at `sizes`
/// (the spec's sizes in order), as five numbers into `schedule`: cells, sampling, beyond, loads
/// and checks in seconds. `NotFound` for a suite or operation the spec lacks.
///
/// # Safety
/// `spec` must be a live handle from `spec_open`, the texts point at their lengths of UTF-8,
/// `sizes` at `sizes_len` numbers and `schedule` at five writable numbers.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spec_cell_seconds(
    spec: *const redis_vs_doublets::spec::Spec,
    suite: *const u8,
    suite_len: usize,
    operation: *const u8,
    operation_len: usize,
    backend: *const u8,
    backend_len: usize,
    client: *const u8,
    client_len: usize,
    sizes: *const u64,
    sizes_len: usize,
    schedule: *mut f64,
) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    let Some(spec) = (unsafe { spec.as_ref() }) else {
        return Status::BadArgument;
    };
    if sizes.is_null() || schedule.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        // SAFETY: the caller passes the texts' and the sizes' lengths.
        let (Ok(suite), Ok(operation), Ok(backend), Ok(client), sizes) = (unsafe {
            (
                text(suite, suite_len),
                text(operation, operation_len),
                text(backend, backend_len),
                text(client, client_len),
                std::slice::from_raw_parts(sizes, sizes_len),
            )
        }) else {
            return Status::BadArgument;
        };
        let Some(suite) = spec.suites.iter().find(|s| s.id == suite) else {
            return Status::NotFound;
        };
        let Some(operation) = suite.operations.iter().find(|o| o.id == operation) else {
            return Status::NotFound;
        };
        if !spec.backends.iter().any(|b| b.name == backend) {
            return Status::NotFound;
        }
        let client = (!client.is_empty()).then_some(client);
        let cell = spec.cell_seconds(suite, operation, backend, client, "csharp", sizes);
        let figures = [
            cell.cells as f64,
            cell.sampling,
            cell.beyond,
            cell.loads,
            cell.checks,
        ];
        // SAFETY: the caller passes five writable numbers.
        unsafe { std::ptr::copy_nonoverlapping(figures.as_ptr(), schedule, figures.len()) };
        Status::Ok
    })
}

/// The seconds one load of `suite` into the store of `backend` takes at `sizes`, as
/// [`redis_vs_doublets::spec::Spec::load_seconds`] counts it, into `seconds`.
///
/// # Safety
/// As [`spec_cell_seconds`]; `seconds` must be valid.
#[no_mangle]
pub unsafe extern "C" fn spec_load_seconds(
    spec: *const redis_vs_doublets::spec::Spec,
    suite: *const u8,
    suite_len: usize,
    backend: *const u8,
    backend_len: usize,
    sizes: *const u64,
    sizes_len: usize,
    seconds: *mut f64,
) -> Status {
    // SAFETY: the caller passes a live handle of ours or null.
    let Some(spec) = (unsafe { spec.as_ref() }) else {
        return Status::BadArgument;
    };
    if sizes.is_null() || seconds.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        // SAFETY: the caller passes the texts' and the sizes' lengths.
        let (Ok(suite), Ok(backend), sizes) = (unsafe {
            (
                text(suite, suite_len),
                text(backend, backend_len),
                std::slice::from_raw_parts(sizes, sizes_len),
            )
        }) else {
            return Status::BadArgument;
        };
        let Some(suite) = spec.suites.iter().find(|s| s.id == suite) else {
            return Status::NotFound;
        };
        if !spec.backends.iter().any(|b| b.name == backend) {
            return Status::NotFound;
        }
        // SAFETY: the caller passes a valid pointer.
        unsafe { *seconds = spec.load_seconds(suite, backend, "csharp", sizes) };
        Status::Ok
    })
}

/// A new, empty split of one cell's time (redis_vs_doublets::split), for `split_add` and
/// `split_line`, freed by `split_free`: the C# harness splits its cells as the Rust bench does.
#[no_mangle]
pub extern "C" fn split_new() -> *mut redis_vs_doublets::split::Split {
    Box::into_raw(Box::default())
}

/// Adds one iteration: the server's INFO cpu commandstats replies just before and just after its
/// `requests` requests, which took `wall_ns` end to end and `client_cpu_ns` of the process's CPU.
/// On an error its message goes to `out` as [`answer`] writes it.
///
/// # Safety
/// `split` must come from `split_new`; the texts must point at their lengths of bytes; `out` at
/// `capacity` writable bytes; `written` be a valid pointer.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn split_add(
    split: *mut redis_vs_doublets::split::Split,
    before: *const u8,
    before_len: usize,
    after: *const u8,
    after_len: usize,
    requests: usize,
    wall_ns: f64,
    client_cpu_ns: f64,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    if split.is_null() || out.is_null() || written.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        let add = || -> anyhow::Result<String> {
            // SAFETY: the caller passes the texts' lengths of bytes, and a split from split_new.
            let (readings, split) = unsafe {
                (
                    (text(before, before_len)?, text(after, after_len)?),
                    &mut *split,
                )
            };
            split.add_readings(readings, requests, wall_ns, client_cpu_ns)?;
            Ok(String::new())
        };
        let result = add();
        // SAFETY: as the caller passes them.
        unsafe { answer(result, out, capacity, written) }
    })
}

/// Whether `info`, a server's reply to `INFO cpu commandstats`, is a reading a split can use
/// ([`redis_vs_doublets::split::Reading::parse`]): an empty text if it is, else what it lacks, as
/// [`answer`] writes it with an error status.
///
/// # Safety
/// `info` must point at `info_len` bytes; `out` at `capacity` writable bytes; `written` be valid.
#[no_mangle]
pub unsafe extern "C" fn split_reading(
    info: *const u8,
    info_len: usize,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    if out.is_null() || written.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        // SAFETY: the caller passes the text's length of bytes.
        let result = unsafe { text(info, info_len) }
            .and_then(redis_vs_doublets::split::Reading::parse)
            .map(|_| String::new());
        // SAFETY: as the caller passes them.
        unsafe { answer(result, out, capacity, written) }
    })
}

/// The result file's line of the split's mean iteration for `cell` (OPERATION/BACKEND), as
/// [`answer`] writes it; an empty text where no iteration was added.
///
/// # Safety
/// As `split_add`.
#[no_mangle]
pub unsafe extern "C" fn split_line(
    split: *const redis_vs_doublets::split::Split,
    cell: *const u8,
    cell_len: usize,
    out: *mut u8,
    capacity: usize,
    written: *mut usize,
) -> Status {
    if split.is_null() || out.is_null() || written.is_null() {
        return Status::BadArgument;
    }
    guard(|| {
        // SAFETY: the caller passes a split from split_new.
        let split = unsafe { *split };
        let line = unsafe { text(cell, cell_len) }.map(|cell| match split.iterations {
            0 => String::new(),
            _ => split.mean().line(cell),
        });
        // SAFETY: as the caller passes them.
        unsafe { answer(line, out, capacity, written) }
    })
}

/// Frees a split from `split_new`.
///
/// # Safety
/// `split` must come from `split_new` and not be used again.
#[no_mangle]
pub unsafe extern "C" fn split_free(split: *mut redis_vs_doublets::split::Split) {
    // SAFETY: the caller passes a split from split_new, once.
    unsafe { free(split) }
}

/// The process's CPU time so far in nanoseconds (the client's side of a split iteration).
#[no_mangle]
pub extern "C" fn process_cpu_ns() -> f64 {
    redis_vs_doublets::harness::process_cpu_ns()
}

fn provenance_text(root: &[u8]) -> anyhow::Result<String> {
    use redis_vs_doublets::{checked, provenance, spec::Spec};
    let root = std::path::Path::new(std::str::from_utf8(root)?);
    let spec = checked(Spec::load(&root.join(redis_vs_doublets::spec::SPEC_PATH)))?;
    let fingerprint = provenance::fingerprint(root, &spec.fingerprint)?;
    let lines = std::iter::once(("fingerprint", fingerprint)).chain(provenance::common());
    Ok(lines.map(|(k, v)| format!("{k}: {v}\n")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn collect(context: *mut c_void, id: u64, source: u64, target: u64) -> i32 {
        let found = unsafe { &mut *(context as *mut Vec<(u64, u64, u64)>) };
        found.push((id, source, target));
        1
    }

    #[test]
    fn both_layouts_create_query_update_and_delete() {
        for layout in [0, 1] {
            let mut store = std::ptr::null_mut();
            unsafe {
                assert_eq!(doublets_new(layout, 0, &mut store), Status::Ok);
                let (mut a, mut b, mut c) = (0, 0, 0);
                assert_eq!(doublets_create_point(store, &mut a), Status::Ok);
                assert_eq!(doublets_create_point(store, &mut b), Status::Ok);
                assert_eq!(doublets_create_link(store, a, b, &mut c), Status::Ok);
                let any = doublets_any(store);
                let mut found: Vec<(u64, u64, u64)> = Vec::new();
                let context = &mut found as *mut _ as *mut c_void;
                assert_eq!(
                    doublets_each(store, any, a, any, Some(collect), context),
                    Status::Ok
                );
                found.sort();
                assert_eq!(found, [(a, a, a), (c, a, b)]);
                let mut id = 0;
                assert_eq!(doublets_search(store, a, b, &mut id), Status::Ok);
                assert_eq!(id, c);
                assert_eq!(doublets_update(store, c, 0, 0), Status::Ok);
                assert_eq!(doublets_search(store, a, b, &mut id), Status::Ok);
                assert_eq!(id, 0);
                assert_eq!(doublets_delete(store, c), Status::Ok);
                assert_eq!(doublets_delete(store, c), Status::NotFound);
                let mut count = 0;
                assert_eq!(doublets_count(store, any, any, any, &mut count), Status::Ok);
                assert_eq!(count, 2);
                doublets_free(store);
            }
        }
    }

    #[test]
    fn bad_arguments_are_refused() {
        unsafe {
            let mut store = std::ptr::null_mut();
            assert_eq!(doublets_new(7, 0, &mut store), Status::BadArgument);
            assert_eq!(
                doublets_delete(std::ptr::null_mut(), 1),
                Status::BadArgument
            );
        }
    }
}

//! Records the compiler and the locked dependency versions, which every result file names.
fn main() {
    built::write_built_file().expect("cannot record the build information");
}

// The standard streams as hostile ground: a command started with stdout (or stdin, stderr) closed must
// not have its next open() land on descriptor 1 and its answers written into a model file; and output
// that could not be written (a full disk, /dev/full, a closed stdout) is an error, not exit status 0.
#pragma once

namespace cpuft {

// Reopens any of descriptors 0, 1, 2 that is closed on /dev/null, stdout read-only so that every write
// to it fails (and is reported by finish_stdout) rather than vanishing.
void guard_standard_descriptors();

// Flushes stdout; a failed write throws cpuft::Error "standard output: write failed: REASON" (and is
// reported only so: finish_stdout then finds nothing more to report). For output written in parts,
// so that a command stops at the first part that cannot be written.
void flush_stdout();

// Flushes and closes stdout. Returns rc when everything written reached it; otherwise prints
// "cpuft: error: standard output: write failed: REASON" on stderr and returns 1 (rc when already
// non-zero).
int finish_stdout(int rc);

}  // namespace cpuft

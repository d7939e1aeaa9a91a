// Collapses the text of `perf script` into folded stacks (core/folded_stacks.h),
// as stackcollapse-perf.pl (Brendan Gregg's FlameGraph) and
// inferno-collapse-perf do. Pure: the text in, the stacks out.
//
// The input: `perf script` with its default fields, of a recording with call
// graphs (`perf record -e cpu-clock -g`); perf-script(1), "FIELDS" and
// "-F". Each sample is a header line, then one line per frame, leaf first,
// then a blank line:
//
//   nginx  6949 37166.193051:    1001001 cpu-clock:
//   	ffffffff82240c89 pvm_irq_enable+0x19 ([kernel.kallsyms])
//   	           fde60 __GI___writev+0x10 (/usr/lib/x86_64-linux-gnu/libc.so.6)
//   	    55bc73b2f458 [unknown] ([unknown])
//
// The header is `comm tid time: [period] event:` (a recording of one process,
// -p), or with the CPU and the pid as a system-wide recording (-a) or
// `-F +pid` print them: `comm pid/tid [cpu] time: period event:`. comm may
// contain spaces and digits; the process id is the first field after it that
// is `<digits>` or `<digits>/<digits>` and is followed by `[<cpu>]` or a field
// ending in ':' (the time, or the event when the time is not printed).
// A frame line starts with a blank: `<hex address> <symbol>[+0x<offset>] (<dso>)`;
// the dso is the last parenthesised group (it may itself contain parentheses,
// "(/lib/x.so (deleted))"); a frame without one has the dso "".
// Both captured on Debian 12's perf 6.1 (fixtures/perf/README.md).
//
// The output: one stack per sample, each sample counted 1 (not its period),
// root first: the process name (comm) as the root frame, then the frames
// from the outermost caller to the leaf. Each frame is its symbol without
// the `+0x...` offset, and
//   - a kernel frame gets the suffix `_[k]` (flamegraph.pl's kernel colour,
//     as stackcollapse-perf.pl --kernel and inferno do): stackcollapse-perf.pl's
//     rule, a dso in brackets (`[kernel.kallsyms]`, a module `[nf_tables]`,
//     also `[vdso]`) other than `[unknown]` or `[JIT] ...`, or `vmlinux`;
//     and a module file `*.ko`;
//   - a frame whose symbol is `[unknown]` (or missing) in JIT code (dso
//     `[JIT] tid <n>`, `//anon...`, or a `perf-<pid>.map` file) is `[JIT]`;
//     JIT code that a perf map names keeps its name;
//   - another `[unknown]` symbol is `[unknown] (<dso basename>)`, or
//     `[unknown]` when the dso is unknown too (stackcollapse-perf.pl names
//     the dso alone, `[libc.so.6]`; here the `[unknown]` stays visible);
//   - ';' in a name becomes ':' (as both collapsers do) so it cannot split a
//     frame; a frame is never empty.
// A sample without frames folds to its comm alone. Lines starting with '#'
// outside a sample (perf script --header) are skipped; a trailing '\r' is
// ignored; a sample not ended by a blank line (a header right after its
// frames, or the end of the text) is still counted.
//
// Errors name `where` and the line ("<where>: line <n>: ..."): a frame line
// before any header, a header line without a process id followed by a time
// or event, a frame address that is not hexadecimal.
#pragma once

#include <string>
#include <string_view>

#include "support/core/folded_stacks.h"
#include "support/core/result.h"

namespace fvbench {

Result<FoldedStacks> CollapsePerfScript(std::string_view perf_script_text, const std::string& where);

}  // namespace fvbench

#include "support/host/remote_runner.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "support/host/shell_quote.h"

namespace fvbench::runner {

// Builtins and Fcntl only, so that a minimal perl runs it. Time is kept by
// select()'s time left (Linux), without Time::HiRes.
const char kRunnerProgram[] = R"PERL(
use strict;
use warnings;
use Fcntl qw(O_RDONLY O_NOFOLLOW O_NONBLOCK);
$SIG{PIPE} = 'IGNORE';
binmode STDIN;
binmode STDOUT;
my $in = '';
my $stdin_open = 1;
my $now = 0;   # seconds since start, kept by select()'s time left
my %jobs;      # request id -> running command

sub frame {
  my $p = '';
  $p .= length($_) . "\n" . $_ for @_;
  return length($p) . "\n" . $p;
}
sub put {
  my $f = frame(@_);
  my $off = 0;
  while ($off < length $f) {
    my $n = syswrite(STDOUT, $f, length($f) - $off, $off);
    if (!defined $n) { next if $! + 0 == 4; exit 1; }
    $off += $n;
  }
}
sub fill {
  while (1) {
    my $n = sysread(STDIN, $in, 65536, length $in);
    if (!defined $n) { next if $! + 0 == 4; $n = 0; }
    $stdin_open = 0 if $n == 0;
    return $n;
  }
}
sub take {
  if ($in !~ /\A(\d{1,12})\n/) {
    die "fvbench-runner: malformed frame\n" if length($in) > 13 || $in =~ /\A\d*[^\d\n]/;
    return undef;
  }
  my ($len, $head) = ($1, length($1) + 1);
  return undef if length($in) < $head + $len;
  my $p = substr($in, $head, $len);
  substr($in, 0, $head + $len, '');
  my @f;
  while (length $p) {
    $p =~ s/\A(\d{1,12})\n// or die "fvbench-runner: malformed field\n";
    my $n = $1;
    die "fvbench-runner: short field\n" if length($p) < $n;
    push @f, substr($p, 0, $n, '');
  }
  return \@f;
}

# Starts a command; its reply comes when it ends (finish_jobs).
sub start_job {
  my ($id, $timeout_ms, $cwd, $argc, @rest) = @_;
  my @argv = splice(@rest, 0, $argc);
  my %env = @rest;
  my ($or, $ow, $er, $ew, $sr, $sw);
  if (!(pipe($or, $ow) && pipe($er, $ew) && pipe($sr, $sw))) { put('run', $id, 'error pipe: ' . $!, -1, 0, 0, '', ''); return; }
  my $pid = fork;
  if (!defined $pid) { put('run', $id, 'error fork: ' . $!, -1, 0, 0, '', ''); return; }
  if ($pid == 0) {
    close $or; close $er; close $sr;
    $SIG{PIPE} = 'DEFAULT';
    setpgrp(0, 0);
    open(STDIN, '<', '/dev/null');
    open(STDOUT, '>&', $ow);
    open(STDERR, '>&', $ew);
    close $ow; close $ew;
    if (length $cwd && !chdir $cwd) { syswrite($sw, 'nocwd ' . $!); exit 127; }
    $ENV{$_} = $env{$_} for keys %env;
    { no warnings; exec { $argv[0] } @argv; }
    syswrite($sw, 'notfound ' . $!);
    exit 127;
  }
  close $ow; close $ew; close $sw;
  setpgrp($pid, $pid);
  my $start = '';
  1 while sysread($sr, $start, 512, length $start);
  close $sr;
  if (length $start) { waitpid($pid, 0); close $or; close $er; put('run', $id, $start, -1, 0, 0, '', ''); return; }
  my ($out, $err) = ('', '');
  $jobs{$id} = { pid => $pid, open => { fileno($or) => [$or, \$out], fileno($er) => [$er, \$err] },
                 out => \$out, err => \$err, start => $now, limit => $timeout_ms > 0 ? $timeout_ms / 1000 : -1,
                 timed_out => 0, reaped => 0, status => 0, term_at => -1, drain_until => -1 };
}

# Reads what the jobs wrote, reaps them, enforces timeouts; replies for
# those that ended: on timeout SIGTERM to the group, SIGKILL 2 s later; once
# reaped, SIGTERM to what is left of the group and 2 s (then SIGKILL, 1 s) for
# its pipes to close.
sub step_jobs {
  my ($ready) = @_;
  for my $id (keys %jobs) {
    my $j = $jobs{$id};
    for my $fd (keys %{$j->{open}}) {
      next unless vec($ready, $fd, 1);
      my ($fh, $buf) = @{$j->{open}{$fd}};
      my $n = sysread($fh, $$buf, 65536, length $$buf);
      next if !defined $n && $! + 0 == 4;
      if (!$n) { close $fh; delete $j->{open}{$fd}; }
    }
    my $t = $now - $j->{start};
    if (!$j->{reaped} && waitpid($j->{pid}, 1) == $j->{pid}) {
      ($j->{reaped}, $j->{status}) = (1, $?);
      kill 'TERM', -$j->{pid};
      $j->{drain_until} = $t + 2;
    }
    if (!$j->{reaped} && $j->{limit} >= 0 && $t >= $j->{limit} && !$j->{timed_out}) {
      $j->{timed_out} = 1;
      kill 'TERM', -$j->{pid};
      $j->{term_at} = $t;
    }
    kill 'KILL', -$j->{pid} if !$j->{reaped} && $j->{timed_out} && $t >= $j->{term_at} + 2;
    if ($j->{reaped} && %{$j->{open}} && $t >= $j->{drain_until}) {
      kill 'KILL', -$j->{pid};
      if ($t >= $j->{drain_until} + 1) { close $_->[0] for values %{$j->{open}}; $j->{open} = {}; }
    }
    next unless $j->{reaped} && !%{$j->{open}};
    my $w = $j->{status};
    put('run', $id, 'ok', ($w & 127) ? -1 : $w >> 8, $w & 127, $j->{timed_out}, ${$j->{out}}, ${$j->{err}});
    delete $jobs{$id};
  }
}

# The controller is gone: every running command's group ends, then the runner.
sub end_all {
  kill 'TERM', -$_->{pid} for values %jobs;
  for (1 .. 40) {
    for my $id (keys %jobs) { delete $jobs{$id} if waitpid($jobs{$id}{pid}, 1) != 0; }
    last unless %jobs;
    select(undef, undef, undef, 0.05);
  }
  kill 'KILL', -$_->{pid} for values %jobs;
  exit 0;
}

# One file, at most $max + 1 bytes of it: only a regular file (lstat: a link
# is not followed; a FIFO or device is never opened), opened without
# following a link or blocking, and the handle's fstat the file checked.
sub read_one {
  my ($max, $p) = @_;
  my @l = lstat($p);
  return ('err ' . $!, '') unless @l;
  return ('type link', '') if -l _;
  return ('type directory', '') if -d _;
  return ('type special', '') unless -f _;
  return ('big ' . $l[7], '') if $l[7] > $max;
  my $fh;
  sysopen($fh, $p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) or return ('err ' . $!, '');
  my @h = stat($fh);
  if (!@h || !-f _ || $h[0] != $l[0] || $h[1] != $l[1]) { close $fh; return ('swapped', ''); }
  my $c = '';
  while (length($c) <= $max) {
    my $want = $max + 1 - length($c);
    my $n = sysread($fh, $c, $want > 65536 ? 65536 : $want, length $c);
    if (!defined $n) { next if $! + 0 == 4; my $e = "$!"; close $fh; return ('err ' . $e, ''); }
    last if $n == 0;
  }
  close $fh;
  return ('ok', $c);
}

sub read_files {
  my ($max, @paths) = @_;
  return map { ('err malformed cap', '') } @paths unless defined $max && $max =~ /\A\d{1,18}\z/;
  return map { read_one($max, $_) } @paths;
}

put('hello', 'fvbench-runner 3', $$);
while (1) {
  while (my $req = take()) {
    my ($kind, $id) = (shift @$req, shift @$req);
    $id = '' unless defined $id;
    if ($kind eq 'run') { start_job($id, @$req); }
    elsif ($kind eq 'read') { put('read', $id, read_files(@$req)); }
    else { put('error', $id, 'unknown request ' . $kind); }
  }
  end_all() unless $stdin_open;
  my $rin = '';
  vec($rin, fileno(STDIN), 1) = 1;
  my $waiting_reap = 0;
  for my $j (values %jobs) {
    vec($rin, $_, 1) = 1 for keys %{$j->{open}};
    $waiting_reap = 1 if !$j->{reaped} && !%{$j->{open}};
  }
  my $slice = !%jobs ? undef : $waiting_reap ? 0.002 : 0.05;
  my $rout = $rin;
  my ($n, $left) = select($rout, undef, undef, $slice);
  $rout = '' if !defined $n || $n <= 0;
  $now += !defined $slice ? 0 : defined $left && $left >= 0 && $left <= $slice ? $slice - $left : $slice;
  fill() if vec($rout, fileno(STDIN), 1);
  step_jobs($rout);
}
)PERL";

std::string RunnerStartScript() {
  return "command -v perl >/dev/null 2>&1 || { echo 'no perl on this host' >&2; exit 127; }\n"
         "exec perl -e " +
         ShellQuote(kRunnerProgram) + "\n";
}

std::string EncodeFrame(const std::vector<std::string>& fields) {
  std::string payload;
  for (const std::string& f : fields) payload += std::to_string(f.size()) + "\n" + f;
  return std::to_string(payload.size()) + "\n" + payload;
}

namespace {

// "<digits>\n" at `pos` of `s`: the number and where its bytes start;
// nullopt when incomplete; Err when malformed.
Result<std::optional<std::pair<size_t, size_t>>> Length(std::string_view s, size_t pos) {
  size_t nl = s.find('\n', pos);
  size_t end = nl == std::string_view::npos ? s.size() : nl;
  if (end - pos > 12 || std::any_of(s.begin() + static_cast<long>(pos), s.begin() + static_cast<long>(end),
                                    [](char c) { return !std::isdigit(static_cast<unsigned char>(c)); })) {
    return Error{"malformed frame from the runner"};
  }
  if (nl == std::string_view::npos) return std::optional<std::pair<size_t, size_t>>();
  if (nl == pos) return Error{"malformed frame from the runner (empty length)"};
  size_t n = 0;
  std::from_chars(s.data() + pos, s.data() + nl, n);
  return std::optional<std::pair<size_t, size_t>>(std::pair{n, nl + 1});
}

}  // namespace

Result<std::optional<std::vector<std::string>>> TakeFrame(std::string& buf) {
  auto head = Length(buf, 0);
  if (!head.ok()) return head.error();
  if (!*head || buf.size() < (*head)->second + (*head)->first) return std::optional<std::vector<std::string>>();
  const auto [len, start] = **head;
  std::string_view p(buf.data() + start, len);
  std::vector<std::string> fields;
  size_t pos = 0;
  while (pos < p.size()) {
    auto f = Length(p, pos);
    if (!f.ok()) return f.error();
    if (!*f || (*f)->second + (*f)->first > p.size()) return Error{"malformed frame from the runner (short field)"};
    fields.emplace_back(p.substr((*f)->second, (*f)->first));
    pos = (*f)->second + (*f)->first;
  }
  buf.erase(0, start + len);
  return std::optional<std::vector<std::string>>(std::move(fields));
}

Result<std::vector<std::string>> RunRequest(const Command& cmd) {
  if (cmd.argv.empty() || cmd.argv[0].empty()) return Error{"cannot start a command with an empty argv"};
  for (size_t i = 0; i < cmd.argv.size(); ++i) {
    if (cmd.argv[i].find('\0') != std::string::npos) {
      return Error{"cannot run '" + cmd.argv[0].substr(0, cmd.argv[0].find('\0')) + "': argv[" + std::to_string(i) +
                   "] contains a NUL byte (not representable in a command line)"};
    }
  }
  if (cmd.cwd.find('\0') != std::string::npos) return Error{"cannot run '" + cmd.argv[0] + "': cwd contains a NUL byte"};
  std::vector<std::string> f = {"run", std::to_string(std::max<long long>(0, cmd.timeout.count())), cmd.cwd,
                                std::to_string(cmd.argv.size())};
  f.insert(f.end(), cmd.argv.begin(), cmd.argv.end());
  for (const auto& [k, v] : cmd.env) {
    const bool name_ok = !k.empty() && !std::isdigit(static_cast<unsigned char>(k[0])) &&
                         std::all_of(k.begin(), k.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                         });
    if (!name_ok) return Error{"cannot start '" + cmd.argv[0] + "': bad environment variable name '" + k + "'"};
    if (v.find('\0') != std::string::npos)
      return Error{"cannot run '" + cmd.argv[0] + "': environment variable '" + k + "' contains a NUL byte"};
    f.push_back(k);
    f.push_back(v);
  }
  return f;
}

std::vector<std::string> ReadRequest(const std::vector<std::string>& paths, uint64_t max_bytes) {
  std::vector<std::string> f = {"read", std::to_string(max_bytes)};
  f.insert(f.end(), paths.begin(), paths.end());
  return f;
}

uint64_t ReadReplyBound(size_t paths, uint64_t max_bytes) {
  // Per path: the status field ("err " and an errno text, "big <size>") and
  // the contents' length line; then the kind and the id.
  constexpr uint64_t kPerPath = 160;
  return 64 + paths * (max_bytes + 1 + kPerPath);
}

std::string WithId(std::vector<std::string> request, const std::string& id) {
  request.insert(request.begin() + (request.empty() ? 0 : 1), id);
  return EncodeFrame(request);
}

std::optional<std::string> TakeId(std::vector<std::string>& reply) {
  if (reply.size() < 2) return std::nullopt;
  std::string id = std::move(reply[1]);
  reply.erase(reply.begin() + 1);
  return id;
}

namespace {

std::optional<long long> Integer(const std::string& s) {
  long long v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

Result<ExecResult> ParseRunReply(const std::vector<std::string>& f, const std::string& what) {
  if (f.size() != 7 || f[0] != "run") return Error{"malformed reply from the runner to " + what};
  const std::string& status = f[1];
  if (status.rfind("nocwd", 0) == 0)
    return Error{"working directory does not exist or is not accessible (" + status.substr(6) + ")"};
  if (status.rfind("notfound", 0) == 0)
    return Error{"command not found in the remote PATH (" + what + ": " + status.substr(9) + ")"};
  if (status != "ok") return Error{"the runner could not start " + what + ": " + status};
  auto code = Integer(f[2]);
  auto sig = Integer(f[3]);
  if (!code || !sig || (f[4] != "0" && f[4] != "1")) return Error{"malformed reply from the runner to " + what};
  ExecResult r;
  r.exit_code = static_cast<int>(*code);
  r.term_signal = static_cast<int>(*sig);
  r.timed_out = f[4] == "1";
  if (r.timed_out) r.exit_code = -1;
  r.out = f[5];
  r.err = f[6];
  return r;
}

Result<std::vector<ReadOutcome>> ParseReadReply(const std::vector<std::string>& f, size_t paths) {
  const Error malformed{"malformed reply from the runner to a read"};
  if (f.size() != 1 + 2 * paths || f[0] != "read") return malformed;
  std::vector<ReadOutcome> out(paths);
  for (size_t i = 0; i < paths; ++i) {
    const std::string& status = f[1 + 2 * i];
    ReadOutcome& o = out[i];
    if (status == "ok") {
      o.kind = ReadOutcome::kOk;
      o.contents = f[2 + 2 * i];
    } else if (status.rfind("err ", 0) == 0) {
      o.kind = ReadOutcome::kError;
      o.error = status.substr(4);
    } else if (status == "type link") {
      o.kind = ReadOutcome::kSymlink;
    } else if (status == "type directory") {
      o.kind = ReadOutcome::kDirectory;
    } else if (status == "type special") {
      o.kind = ReadOutcome::kSpecial;
    } else if (status == "swapped") {
      o.kind = ReadOutcome::kSwapped;
    } else if (status.rfind("big ", 0) == 0) {
      auto n = Integer(status.substr(4));
      if (!n || *n < 0) return malformed;
      o.kind = ReadOutcome::kOverStated;
      o.stated_bytes = static_cast<uint64_t>(*n);
    } else {
      return malformed;
    }
  }
  return out;
}

Result<std::optional<FrameHead>> PeekFrameHead(std::string_view buf) {
  auto head = Length(buf, 0);
  if (!head.ok()) return head.error();
  if (!*head) return std::optional<FrameHead>();
  FrameHead h;
  h.payload_bytes = (*head)->first;
  size_t pos = (*head)->second;
  const size_t end = pos + h.payload_bytes;
  std::string* fields[] = {&h.kind, &h.id};
  for (std::string* field : fields) {
    // A field's length line is at most 13 bytes; the kind and the id are short.
    auto f = Length(buf.substr(0, std::min(buf.size(), end)), pos);
    if (!f.ok()) return f.error();
    if (!*f) return std::optional<FrameHead>();
    if ((*f)->first > 64 || (*f)->second + (*f)->first > end) return Error{"malformed frame from the runner (head)"};
    if (buf.size() < (*f)->second + (*f)->first) return std::optional<FrameHead>();
    *field = std::string(buf.substr((*f)->second, (*f)->first));
    pos = (*f)->second + (*f)->first;
  }
  return std::optional<FrameHead>(std::move(h));
}

}  // namespace fvbench::runner

#include "support/host/remote_runner.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "support/host/shell_quote.h"

namespace fvbench::runner {

// Builtins only (no module), so that a minimal perl runs it. Time is kept by
// select()'s time left (Linux), without Time::HiRes.
const char kRunnerProgram[] = R"PERL(
use strict;
use warnings;
$SIG{PIPE} = 'IGNORE';
binmode STDIN;
binmode STDOUT;
my $in = '';
my $stdin_open = 1;

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

# Waits up to $t seconds for one of the fds in $rin; returns the ready set
# and the seconds that passed.
sub wait_fds {
  my ($rin, $t) = @_;
  my $rout = $rin;
  my ($n, $left) = select($rout, undef, undef, $t);
  $rout = '' if !defined $n || $n <= 0;
  return ($rout, defined $left && $left >= 0 && $left <= $t ? $t - $left : $t);
}

# SIGTERM to group $g, up to 2 s, SIGKILL; reaps $pid.
sub end_group {
  my ($g, $pid) = @_;
  kill 'TERM', -$g;
  for (1 .. 40) { return if waitpid($pid, 1) != 0; select(undef, undef, undef, 0.05); }
  kill 'KILL', -$g;
  waitpid($pid, 0);
}

sub run_cmd {
  my ($timeout_ms, $cwd, $argc, @rest) = @_;
  my @argv = splice(@rest, 0, $argc);
  my %env = @rest;
  my ($or, $ow, $er, $ew, $sr, $sw);
  pipe($or, $ow) && pipe($er, $ew) && pipe($sr, $sw) or return ('error pipe: ' . $!, -1, 0, 0, '', '');
  my $pid = fork;
  return ('error fork: ' . $!, -1, 0, 0, '', '') unless defined $pid;
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
  if (length $start) { waitpid($pid, 0); close $or; close $er; return ($start, -1, 0, 0, '', ''); }

  my ($out, $err) = ('', '');
  my %open = (fileno($or) => [$or, \$out], fileno($er) => [$er, \$err]);
  my $limit = $timeout_ms > 0 ? $timeout_ms / 1000 : -1;
  my ($t, $timed_out, $reaped, $status, $term_at, $drain_until) = (0, 0, 0, 0, -1, -1);
  while (%open || !$reaped) {
    my $rin = '';
    vec($rin, $_, 1) = 1 for keys %open;
    vec($rin, fileno(STDIN), 1) = 1 if $stdin_open;
    my ($ready, $dt) = wait_fds($rin, %open ? 0.05 : 0.002);
    $t += $dt;
    for my $fd (keys %open) {
      next unless vec($ready, $fd, 1);
      my ($fh, $buf) = @{$open{$fd}};
      my $n = sysread($fh, $$buf, 65536, length $$buf);
      next if !defined $n && $! + 0 == 4;
      if (!$n) { close $fh; delete $open{$fd}; }
    }
    if ($stdin_open && vec($ready, fileno(STDIN), 1) && !fill()) { end_group($pid, $pid); exit 0; }
    if (!$reaped && waitpid($pid, 1) == $pid) {
      ($reaped, $status) = (1, $?);
      kill 'TERM', -$pid;
      $drain_until = $t + 2;
    }
    if (!$reaped && $limit >= 0 && $t >= $limit && !$timed_out) {
      $timed_out = 1;
      kill 'TERM', -$pid;
      $term_at = $t;
    }
    kill 'KILL', -$pid if !$reaped && $timed_out && $t >= $term_at + 2;
    if ($reaped && %open && $t >= $drain_until) {
      kill 'KILL', -$pid;
      if ($t >= $drain_until + 1) { close $_->[0] for values %open; %open = (); }
    }
  }
  return ('ok', ($status & 127) ? -1 : $status >> 8, $status & 127, $timed_out, $out, $err);
}

sub read_files {
  my @r;
  for my $p (@_) {
    if (!-e $p) { push @r, 'err ' . $!, ''; next; }
    if (!-f _) { push @r, 'err not a regular file', ''; next; }
    my $fh;
    if (!open($fh, '<:raw', $p)) { push @r, 'err ' . $!, ''; next; }
    my ($c, $ok) = ('', 1);
    while (1) {
      my $n = sysread($fh, $c, 65536, length $c);
      if (!defined $n) { next if $! + 0 == 4; $ok = 0; last; }
      last if $n == 0;
    }
    push @r, $ok ? ('ok', $c) : ('err ' . $!, '');
    close $fh;
  }
  return @r;
}

put('hello', 'fvbench-runner 1', $$);
while (1) {
  my $req = take();
  if (!$req) { exit 0 unless $stdin_open; fill(); next; }
  my $kind = shift @$req;
  if ($kind eq 'run') { put('run', run_cmd(@$req)); }
  elsif ($kind eq 'read') { put('read', read_files(@$req)); }
  else { put('error', 'unknown request ' . $kind); }
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

Result<std::string> RunRequest(const Command& cmd) {
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
  return EncodeFrame(f);
}

std::string ReadRequest(const std::vector<std::string>& paths) {
  std::vector<std::string> f = {"read"};
  f.insert(f.end(), paths.begin(), paths.end());
  return EncodeFrame(f);
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
  if (f.size() != 1 + 2 * paths || f[0] != "read") return Error{"malformed reply from the runner to a read"};
  std::vector<ReadOutcome> out(paths);
  for (size_t i = 0; i < paths; ++i) {
    const std::string& status = f[1 + 2 * i];
    if (status == "ok") {
      out[i].ok = true;
      out[i].contents = f[2 + 2 * i];
    } else if (status.rfind("err ", 0) == 0) {
      out[i].error = status.substr(4);
    } else {
      return Error{"malformed reply from the runner to a read"};
    }
  }
  return out;
}

}  // namespace fvbench::runner

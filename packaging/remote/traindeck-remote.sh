#!/bin/sh
# traindeck-remote.sh: what the desktop app runs on a remote host, over SSH, for a remote job.
# POSIX sh and coreutils only. Every argument comes quoted from the app (shellJoin): nothing
# here is evaluated. Answers are "key=value" lines unless said otherwise.
#
#   probe WORK                          what the host has (OS, CPUs, memory, disk, GPUs, torch, tools)
#   prepare WORK                        makes the work folder (0700)
#   install PACKAGE...                  as root with apt-get: only build tools (cmake, g++, make, ninja-build)
#   unpack TARBALL DEST                 the trainer's sources into DEST (DEST/.done when complete)
#   build SRC BUILD LIBTORCH            builds traindeck-train in BUILD against LIBTORCH (pip|system;
#                                       BUILD/.done when built; one build at a time per folder)
#   launch TRAIN CONFIG RUNDIR [ARG..]  starts `TRAIN run` detached in its own session, once: asked
#                                       again for the same RUNDIR it answers what it started
#   launched RUNDIR                     what launch started there (its launch.env), or launched=no
#   seed RUNDIR                         makes RUNDIR ready for a run continued from elsewhere: refused
#                                       while a run launched there lives; an earlier folder is moved
#                                       aside (RUNDIR.replaced-DATE), never deleted
#   build-job SRC BUILD LIBTORCH [OPTION..]
#                                       Slurm: the same build as a job (sbatch --wait OPTION..), its
#                                       output followed from BUILD.job.log
#   install-trainer BUILD               BUILD/bin/traindeck-train.partial (a build brought from a host
#                                       like this one) becomes BUILD's trainer if --version runs there
#   alive PID START                     whether PID is still the process that started at START
#   signal SIGNAL PID START             sends SIGNAL to PID only while alive PID START says yes
#   checkpoint RUNDIR                   the newest COMPLETE checkpoint: "dir NAME", then "file NAME SIZE" lines
#   export TRAIN RUNDIR                 that checkpoint exported for Hugging Face into RUNDIR/exports/NAME-hf
#                                       (once), listed the same way
#   read RUNDIR MAX PID START [NAME OFFSET]...
#                                       the run's files past the given offsets (see below)
#   have FILE                           have=yes when FILE is there (a .done marker), else have=no
#   built BUILD                         built=yes when BUILD holds a finished trainer, else built=no
#   mkdirs DIR...                       makes each DIR and its parents
#   remove FILE...                      removes each FILE (none there is no error)
#   install-data PARTIAL DEST           PARTIAL (one start's upload) becomes DEST, complete (see below)
#   watch DIR                           whether DIR is a run folder (run.json or metrics.jsonl): its
#                                       absolute path as run_dir=
#   submit SCRIPT RUNDIR                Slurm: `sbatch --parsable SCRIPT` from RUNDIR,
#                                       once: asked again for the same RUNDIR it answers the job it
#                                       submitted (slurm.env: job=ID)
#   submit-array SCRIPT ARRAYDIR PACK RUNDIR...
#                                       Slurm: a job array, task t the runs t*PACK.. of the RUNDIRs
#                                       (PACK 1: task k the k-th run): links ARRAYDIR/k to the k-th
#                                       (the array's output pattern goes through them), `sbatch
#                                       --parsable SCRIPT` from ARRAYDIR, once (ARRAYDIR/slurm.env),
#                                       and each RUNDIR's slurm.env says job=ID_t (and packed=yes
#                                       when PACK > 1)
#   queue                               Slurm: one `squeue` of this account's jobs, every state, an
#                                       array's tasks one by one (ID_k): lines
#                                       "job ID|STATE|REASON|NODES|START", then queue=ok
#   stop ID RUNDIR                      Slurm: RUNDIR/stop-requested (the user's stop, not a time
#                                       limit), then USR2 to the job's steps: every rank checkpoints;
#                                       a job still waiting is cancelled (signalled=waiting). A
#                                       packed run (slurm.env): the marker alone, which its trainer
#                                       watches and its pack reads before starting it (a signal
#                                       would reach the whole job)
#   cancel ID [RUNDIR]                  Slurm: `scancel ID`, after writing RUNDIR/kill-requested;
#                                       a packed run: that marker alone, as for stop
# probe, build and Slurm's commands run in the host's login shell (TRAINDECK_LOGIN_SHELL, default
# bash -l), where sites set up their tools (modules, profile.d).
# The app runs each as `sh HELPER COMMAND ARG...` (RemoteHelper, app/remote/remote_helper.h), behind
# a guard that answers helper=missing (exit 97) when this file is not there: the work folder went.
set -u

boot_id() { cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown; }
# Field 22 of /proc/PID/stat: the start time in clock ticks since boot; with the boot id it names
# one process for good (a pid alone is reused).
# A zombie (state Z) has ended: it has no start time to match.
start_time() {
  [ -r "/proc/$1/stat" ] || return 1
  # shellcheck disable=SC2046
  set -- $(sed 's/^.*) //' "/proc/$1/stat")
  [ "$1" != Z ] && [ -n "${20:-}" ] || return 1
  echo "${20}"
}
# Whether PID is still the process that started at START (an empty START never is).
still_runs() { [ -n "$2" ] && [ "$(start_time "$1" 2>/dev/null)" = "$2" ]; }
die() { echo "error=$*"; exit 1; }
# Whether RUNDIR's run shares its Slurm job with others (submit-array with a pack).
packed_run() { grep -qx 'packed=yes' "$1/slurm.env" 2>/dev/null; }
# send NAME OFFSET, for `read` and `stream`: "file NAME SIZE FROM COUNT", then COUNT bytes of
# the run folder's NAME from FROM (at most $max; read once into $chunk, so COUNT is what follows, exactly)
# and a newline. FROM is OFFSET, or 0 when the file is now shorter (it was replaced). Sets
# $sent_end to FROM + COUNT (OFFSET for a file not there, which sends nothing).
send() {
  f="$rundir/$1" sent_end=$2
  [ -f "$f" ] || return 0
  size=$(wc -c < "$f")
  from=$2
  [ "$size" -lt "$from" ] && from=0
  tail -c "+$((from + 1))" "$f" 2>/dev/null | head -c "$max" > "$chunk"
  count=$(wc -c < "$chunk")
  echo "file $1 $size $from $count"
  cat "$chunk"
  echo
  sent_end=$((from + count))
}
# "~" and "~/x" as the app sends them: quoted, so no shell expanded them on the way.
# shellcheck disable=SC2088  # the tilde is matched as a plain character on purpose
home_path() { case "$1" in "~/"*) printf '%s\n' "$HOME/${1#\~/}" ;; "~") printf '%s\n' "$HOME" ;; *) printf '%s\n' "$1" ;; esac; }

cmd=${1:-}
[ $# -gt 0 ] && shift

# What depends on the site's set-up (modules, profile.d: sbatch, cmake, nvcc on PATH) runs in the
# host's login shell, as its users run it: TRAINDECK_LOGIN_SHELL (the job's target.login_shell;
# default bash -l, none for plain sh). Split into words on purpose; the app checked its characters.
# The trainer then starts (launch, install-trainer) where it was built, with the same libraries.
case "$cmd" in
  probe | build | build-job | install-trainer | launch | submit | submit-array | queue | stop | cancel)
    shell=${TRAINDECK_LOGIN_SHELL:-bash -l}
    case "$shell" in *[!A-Za-z0-9_./+\ -]* | -* | " "*) die "the login shell \"$shell\" is not a program and its options" ;; esac
    # (Run as `sh -c TEXT`, the Hosts dialog's probe, it has no file of its own to start again: as it is.)
    if [ -z "${TRAINDECK_IN_LOGIN_SHELL:-}" ] && [ "$shell" != none ] && [ "${0#/}" != "$0" ] && [ -f "$0" ]; then
      if command -v "${shell%% *}" >/dev/null; then
        export TRAINDECK_IN_LOGIN_SHELL=1
        # stdin closed: a profile that asks something must not wait for an answer that never comes.
        # shellcheck disable=SC2086,SC2016  # the words of the shell; $0 and $@ are the login shell's
        exec $shell -c 'exec sh "$0" "$@"' "$0" "$cmd" "$@" < /dev/null
      fi
      # The default where bash is missing (a minimal image): plain sh. One the job asked for: said.
      [ "$shell" = "bash -l" ] || die "the login shell \"${shell%% *}\" is not on this host (target.login_shell)"
    fi
    ;;
esac
case "$cmd" in
  probe)
    work=$1
    echo "boot_id=$(boot_id)"
    echo "hostname=$(hostname 2>/dev/null || cat /etc/hostname)"
    # shellcheck source=/dev/null  # the host's own
    [ -r /etc/os-release ] && . /etc/os-release && echo "os=${PRETTY_NAME:-${ID:-unknown}}"
    echo "glibc=$(ldd --version 2>/dev/null | head -1 | sed 's/.* //')"
    echo "cpus=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)"
    echo "cpu_flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "cpu_mhz=$(sed -n 's/^cpu MHz[[:space:]]*: //p' /proc/cpuinfo | head -1)"
    echo "memory_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)"
    echo "user=$(id -un)"
    echo "uid=$(id -u)"
    command -v apt-get >/dev/null && echo "apt=yes"
    work=$(home_path "$work")
    dir=$work
    while [ ! -d "$dir" ]; do dir=$(dirname "$dir"); done
    echo "work_dir=$work"
    echo "disk_free_kb=$(df -Pk "$dir" | awk 'NR==2 {print $4}')"
    if command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader,nounits 2>/dev/null |
        while IFS= read -r gpu; do echo "gpu=$gpu"; done
    fi
    if command -v nvidia-smi >/dev/null; then
      echo "gpu_arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)"
    fi
    echo "arch=$(uname -m)"
    [ -e /dev/accel0 ] || [ -e /dev/vfio/0 ] && echo "tpu=yes"
    [ -d /content ] && [ -n "${COLAB_RELEASE_TAG:-}${COLAB_GPU:-}" ] && echo "colab=yes"
    if command -v python3 >/dev/null; then
      echo "python=$(python3 -c 'import sys; print(sys.version.split()[0])' 2>/dev/null)"
      python3 -c '
import torch
print("torch=" + torch.__version__)
print("torch_cuda=" + (torch.version.cuda or "none"))
print("torch_prefix=" + torch.utils.cmake_prefix_path)
print("torch_cxx11_abi=" + str(int(torch._C._GLIBCXX_USE_CXX11_ABI)))' 2>/dev/null
    fi
    for dir in /usr/lib/x86_64-linux-gnu/cmake /usr/lib/cmake /usr/local/lib/cmake; do
      [ -f "$dir/Torch/TorchConfig.cmake" ] && { echo "system_libtorch=$dir"; break; }
    done
    command -v nvcc >/dev/null && echo "nvcc=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
    command -v cmake >/dev/null && echo "cmake=$(cmake --version | head -1 | sed 's/.* //')"
    command -v g++ >/dev/null && echo "gxx=$(g++ -dumpfullversion 2>/dev/null || g++ -dumpversion)"
    command -v ninja >/dev/null && echo "ninja=yes"
    # A Slurm login node: its partitions (name, nodes, GRES, time limit), as the login shell finds sinfo.
    sinfo -h -o '%P|%D|%G|%l' 2>/dev/null | while IFS= read -r line; do echo "slurm_partition=$line"; done
    echo "end=probe"
    ;;
  install)
    [ "$(id -u)" = 0 ] || die "installing packages needs root; run: sudo apt-get install -y $*"
    command -v apt-get >/dev/null || die "the host has no apt-get; install $* with its package manager"
    for package in "$@"; do
      case "$package" in cmake | g++ | make | ninja-build) ;; *) die "$package is not a build tool TrainDeck installs" ;; esac
    done
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -q 2>&1 && apt-get install -y -q "$@" 2>&1; } || die "apt-get could not install $*: the lines above say why"
    echo "installed=$*"
    ;;
  prepare)
    work=$1
    mkdir -p "$work" || die "cannot make the work folder $work"
    chmod 700 "$work" || die "cannot restrict the work folder $work to its owner"
    echo "work_dir=$(cd "$work" && pwd)"
    ;;
  unpack)
    tarball=$1 dest=$2
    [ -f "$dest/.done" ] && { echo "unpacked=cached"; exit 0; }
    partial="$dest.partial.$$"  # this call's own: two starts at once do not share one
    { rm -rf "$partial" && mkdir -p "$partial"; } || die "cannot make $partial"
    why=$(tar -xf "$tarball" -C "$partial" 2>&1) || { rm -rf "$partial"; die "the trainer's sources in $tarball do not unpack: $why"; }
    : > "$partial/.done"
    if [ -f "$dest/.done" ]; then rm -rf "$partial"; else { rm -rf "$dest" && mv "$partial" "$dest"; } || die "cannot move the sources into $dest"; fi
    echo "unpacked=yes"
    ;;
  build)
    src=$1 build=$2 libtorch=$3
    mkdir -p "$build" || die "cannot make the build folder $build"
    # One build per folder at a time; a second start waits for the first and finds it built.
    if command -v flock >/dev/null; then
      exec 9> "$build.lock"
      flock 9
    fi
    [ -f "$build/.done" ] && [ -x "$build/bin/traindeck-train" ] && { echo "built=cached"; exit 0; }
    LIBTORCH=$libtorch TESTS=OFF bash "$src/packaging/build-trainer.sh" "$src" "$build" traindeck-train 2>&1
    status=$?
    [ $status -eq 0 ] || { echo "error=the trainer's build failed (exit $status): the lines above say why"; exit $status; }
    : > "$build/.done"
    echo "built=yes"
    ;;
  build-job)
    # The same build as a small Slurm job, where the login node may not compile: sbatch --wait, its
    # output followed as it is written. OPTION...: sbatch's own (--partition=..., --account=...).
    src=$1 build=$2 libtorch=$3
    shift 3
    for option in "$@"; do case "$option" in --?*) ;; *) die "\"$option\" is not an sbatch option" ;; esac; done
    mkdir -p "$build" || die "cannot make the build folder $build"
    # One build job per folder: a second start (or this one again after a lost link) waits for the
    # first and finds it built.
    if command -v flock >/dev/null; then
      exec 8> "$build.job.lock"
      flock 8 || die "cannot lock $build.job.lock (a file system without locks?)"
    fi
    [ -f "$build/.done" ] && [ -x "$build/bin/traindeck-train" ] && { echo "built=cached"; exit 0; }
    log="$build.job.log" script="$build.job.sh"
    : > "$log" || die "cannot write $log"
    # Fixed text: the paths come as the batch script's arguments.
    # shellcheck disable=SC2016
    printf '#!/bin/sh\nexec sh "$1" build "$2" "$3" "$4"\n' > "$script" || die "cannot write $script"
    # --output is a filename pattern: a % of the path is written %%.
    sbatch --parsable --wait --job-name=traindeck-build --nodes=1 --ntasks=1 \
      --output="$(printf '%s' "$log" | sed 's/%/%%/g')" "$@" \
      "$script" "$0" "$src" "$build" "$libtorch" > "$build.job.id" 2>&1 &
    submitted=$!
    tail -n +1 -f --pid="$submitted" "$log" 2>/dev/null
    wait "$submitted"
    status=$?
    # sbatch --wait's status is the job's; a shared file system may show .done a little later here.
    if [ $status -eq 0 ]; then
      tries=0
      while [ ! -f "$build/.done" ] && [ $tries -lt 60 ]; do sleep 1; tries=$((tries + 1)); done
      [ -f "$build/.done" ] && { echo "built=yes"; exit 0; }
    fi
    die "the build job ended (sbatch: $(tail -n 1 "$build.job.id")); its output is in $log"
    ;;
  launch)
    train=$1 config=$2 rundir=$3
    shift 3
    # Asked again (the answer was lost with the link): what was started, not a second run.
    [ -f "$rundir/launch.env" ] && { cat "$rundir/launch.env"; exit 0; }
    mkdir -p "$rundir" || die "cannot make the run folder $rundir"
    # Its own session, no terminal, streams to a file: it outlives this SSH connection.
    # Appended: a run continued here from another host keeps the log it brought along.
    setsid "$train" run --config "$config" --run-dir "$rundir" --no-progress "$@" \
      < /dev/null >> "$rundir/supervisor.log" 2>&1 &
    pid=$!
    start=$(start_time "$pid") || die "the trainer ended at once; see $rundir/supervisor.log"
    printf 'pid=%s\nstart_time=%s\nboot_id=%s\n' "$pid" "$start" "$(boot_id)" > "$rundir/launch.env.tmp" &&
      mv "$rundir/launch.env.tmp" "$rundir/launch.env"
    cat "$rundir/launch.env"
    ;;
  launched)
    [ -f "$1/launch.env" ] && cat "$1/launch.env" || echo "launched=no"
    ;;
  seed)
    rundir=$1
    if [ -f "$rundir/launch.env" ]; then
      pid=$(sed -n 's/^pid=//p' "$rundir/launch.env") start=$(sed -n 's/^start_time=//p' "$rundir/launch.env")
      still_runs "$pid" "$start" &&
        die "the run still goes on in $rundir (pid $pid): follow it there instead"
    fi
    if [ -e "$rundir" ]; then
      aside="$rundir.replaced-$(date -u +%Y%m%d-%H%M%S)"
      mv "$rundir" "$aside" || die "cannot move the earlier $rundir aside"
      echo "moved_aside=$aside"
    fi
    mkdir -p "$rundir/logs" "$rundir/checkpoints" || die "cannot make the run folder $rundir"
    echo "seeded=yes"
    ;;
  install-trainer)
    build=$1
    mkdir -p "$build" || die "cannot make the build folder $build"
    if command -v flock >/dev/null; then
      exec 9> "$build.lock"
      flock 9
    fi
    partial=${2:-$build/bin/traindeck-train.partial}
    [ -f "$build/.done" ] && [ -x "$build/bin/traindeck-train" ] && { rm -f "$partial"; echo "installed=cached"; exit 0; }
    chmod 755 "$partial" || die "the uploaded trainer $partial is not there"
    out=$("$partial" --version 2>&1) || { rm -f "$partial"; die "it does not run here: $(echo "$out" | tail -1)"; }
    version=$(echo "$out" | head -1)
    { mv "$partial" "$build/bin/traindeck-train" && : > "$build/.done"; } || die "cannot install the trainer in $build"
    echo "version=$version"
    echo "installed=yes"
    ;;
  alive)
    pid=$1 start=$2
    still_runs "$pid" "$start" && echo "alive=yes" || echo "alive=no"
    echo "boot_id=$(boot_id)"
    ;;
  signal)
    sig=$1 pid=$2 start=$3
    still_runs "$pid" "$start" || { echo "signalled=gone"; exit 0; }
    kill "-$sig" "$pid" && echo "signalled=yes"
    ;;
  checkpoint | export)
    # The newest checkpoints/step-N holding COMPLETE (written last: the folder is whole), by N,
    # N digits only (not step-N.tmp-PID being written): core/runlog/checkpoint_names.h's rule.
    [ "$cmd" = export ] && { train=$1; shift; }
    rundir=$1
    newest="" newest_step=-1
    for dir in "$rundir"/checkpoints/step-*; do
      step=${dir##*/step-}
      case "$step" in '' | *[!0-9]*) continue ;; esac
      [ -f "$dir/COMPLETE" ] || continue
      while [ "${step#0}" != "$step" ]; do step=${step#0}; done  # 00000120: 120, not octal
      step=${step:-0}
      [ "${#step}" -gt 18 ] && continue
      [ "$step" -ge "$newest_step" ] && { newest=$dir; newest_step=$step; }
    done
    [ -n "$newest" ] || { echo "checkpoint=none"; die "the run has no complete checkpoint yet"; }
    name=${newest##*/}
    case "$name" in *[!A-Za-z0-9._-]*) die "unexpected checkpoint name $name" ;; esac
    dir=$newest
    if [ "$cmd" = export ]; then
      dir="$rundir/exports/$name-hf"
      if [ ! -f "$dir/.done" ]; then
        { rm -rf "$dir.partial" && mkdir -p "$dir.partial"; } || die "cannot make $dir.partial"
        "$train" export --checkpoint "$newest" --hf "$dir.partial" >&2 || die "the export of $name failed"
        : > "$dir.partial/.done"
        { rm -rf "$dir" && mv "$dir.partial" "$dir"; } || die "cannot move the export into $dir"
      fi
      name="$name-hf"
    fi
    echo "dir $name"
    (cd "$dir" && find . -type f ! -name .done | sed 's|^\./||' | sort) | while IFS= read -r f; do
      case "$f" in *[!A-Za-z0-9._/-]*) continue ;; esac  # names are framed by spaces
      echo "file $f $(wc -c < "$dir/$f")"
    done
    echo "end"
    ;;
  read)
    # Lines "boot ID", "alive yes|no" (the supervisor PID START) and "rundir yes|no", then for each NAME OFFSET a
    # line "file NAME SIZE FROM COUNT", COUNT bytes (at most MAX) and a newline. FROM is OFFSET,
    # or 0 when the file is now shorter (it was replaced: it is read again). Rank logs not named
    # come from offset 0. "end" closes the answer.
    rundir=$1 max=$2 pid=$3 start=$4
    shift 4
    echo "boot $(boot_id)"
    still_runs "$pid" "$start" && echo "alive yes" || echo "alive no"
    [ -d "$rundir" ] && echo "rundir yes" || echo "rundir no"
    names=""
    chunk=$(mktemp) || die "no temporary file"
    trap 'rm -f "$chunk"' EXIT
    while [ $# -ge 2 ]; do
      send "$1" "$2"
      names="$names /$1/"
      shift 2
    done
    for log in "$rundir"/logs/rank-*.log; do
      [ -f "$log" ] || continue
      name="logs/${log##*/}"
      case "${log##*/}" in rank-*[!0-9]*.log) continue ;; esac  # only rank-<n>.log: names are framed by spaces
      case "$names" in *" /$name/"*) ;; *) send "$name" 0 ;; esac
    done
    echo "end"
    ;;
  stream)
    # `read`'s answers, one after another over one channel while it stays open: one as soon as a
    # file changed (looked at every 25 ms while they change, every 100 ms when quiet, one stat
    # for all) and one at least every second (the supervisor's life). Each growing file goes on
    # from where the last answer left it (NAME OFFSET as read's; rank logs not named from 0);
    # run.json and config.yaml come whole when they were rewritten (a rename: a new inode, or
    # another size) and once a second. Ends after 10 minutes or so (the app opens another) or
    # when the app's end of the channel is gone (the next write fails).
    rundir=$1 max=$2 pid=$3 start=$4
    shift 4
    # A host whose stat has no -c (BusyBox without it) would stream nothing: it is said, and the
    # app reads by polls instead.
    stat -c '%s' -- "$rundir" > /dev/null 2>&1 || [ ! -d "$rundir" ] || die "this host's stat has no -c"
    chunk=$(mktemp) || die "no temporary file"
    trap 'rm -f "$chunk"' EXIT
    trap 'exit 1' HUP INT PIPE TERM  # the app's end gone: the EXIT trap still tidies up
    offsets=" "       # " NAME=OFFSET ..." of the growing files
    whole="" sent=" "  # run.json and config.yaml; " NAME=SIZE:INODE ..." of them as last sent
    while [ $# -ge 2 ]; do
      case "$1" in
        run.json | config.yaml) whole="$whole $1" ;;
        *[!A-Za-z0-9._/-]*) ;;  # names are framed by spaces
        *) offsets="$offsets$1=$2 " ;;
      esac
      shift 2
    done
    # $off: NAME's offset (0 for a file not named yet). No subshell: it runs every round.
    offset_of() { case "$offsets" in *" $1="*) off=${offsets#*" $1="} && off=${off%% *} ;; *) off=0 ;; esac; }
    boot=$(boot_id)
    round=0 beat=0 quiet=0
    while [ $round -lt 24000 ]; do  # 10 minutes or so of 25 ms rounds
      round=$((round + 1))
      named=""
      for pair in $offsets; do named="$named ${pair%%=*}"; done
      for log in "$rundir"/logs/rank-*.log; do
        case "$offsets" in *" logs/${log##*/}="*) ;; *) [ -f "$log" ] && named="$named logs/${log##*/}" ;; esac
      done
      # NAME SIZE INODE of each file there: one stat, the one program a round runs.
      # shellcheck disable=SC2086  # our own names, no spaces: split on purpose
      stats=$(cd "$rundir" 2>/dev/null && exec stat -c '%n %s %i' -- $named $whole 2>/dev/null)
      changed=no
      # shellcheck disable=SC2086
      set -- $stats
      while [ $# -ge 3 ]; do
        case "$1" in
          logs/rank-*[!0-9]*.log) ;;
          run.json | config.yaml) case "$sent" in *" $1=$2:$3 "*) ;; *) changed=yes ;; esac ;;
          *) offset_of "$1" && [ "$off" = "$2" ] || changed=yes ;;
        esac
        shift 3
      done
      beat=$((beat + 1))
      [ $round -eq 1 ] && beat=40
      if [ $changed = yes ] || [ $beat -ge 40 ]; then
        heartbeat=no
        [ $beat -ge 40 ] && heartbeat=yes
        beat=0
        echo "boot $boot"
        still_runs "$pid" "$start" && echo "alive yes" || echo "alive no"
        [ -d "$rundir" ] && echo "rundir yes" || echo "rundir no"
        next=" "
        # shellcheck disable=SC2086
        set -- $stats
        while [ $# -ge 3 ]; do
          name=$1 stat_size=$2 inode=$3  # not $size: send sets that
          shift 3
          case "$name" in
            logs/rank-*[!0-9]*.log) continue ;;
            run.json | config.yaml)
              case "$heartbeat$sent" in yes*) ;; *" $name=$stat_size:$inode "*) continue ;; esac
              send "$name" 0
              sent="$(printf '%s' "$sent" | sed "s| $name=[^ ]* | |") $name=$stat_size:$inode "
              continue
              ;;
          esac
          offset_of "$name"
          if [ "$stat_size" = "$off" ]; then  # nothing new: its size alone, no program run
            echo "file $name $stat_size $off 0"
            echo
            sent_end=$off
          else
            send "$name" "$off"
          fi
          next="$next$name=$sent_end "
        done
        # Files named that are not there (yet) keep their offsets.
        for pair in $offsets; do
          case "$next" in *" ${pair%%=*}="*) ;; *) next="$next$pair " ;; esac
        done
        offsets=$next
        echo "end"
      fi
      # 25 ms while files change; after a quiet 0.2 s, 100 ms (a quarter of the stats on a host
      # whose run logs a step a second), counted as four rounds.
      if [ $changed = yes ]; then quiet=0; else quiet=$((quiet + 1)); fi
      if [ $quiet -lt 8 ]; then
        sleep 0.025 2>/dev/null || sleep 1
      else
        sleep 0.1 2>/dev/null || sleep 1
        beat=$((beat + 3)) round=$((round + 3))
      fi
    done
    ;;
  have)
    [ -f "$1" ] && echo "have=yes" || echo "have=no"
    ;;
  built)
    # What `build` and `install-trainer` leave: the marker, and the trainer they made.
    [ -f "$1/.done" ] && [ -x "$1/bin/traindeck-train" ] && echo "built=yes" || echo "built=no"
    ;;
  mkdirs)
    mkdir -p -- "$@" || die "cannot make $*"
    echo "made=yes"
    ;;
  remove)
    rm -f -- "$@"
    echo "removed=yes"
    ;;
  install-data)
    # PARTIAL is this start's own upload (another start uploading the same data at once writes
    # into its own). It is made complete (.done inside it first), then renamed into place as DEST
    # in one rename(2), so that a cut upload is never taken for a complete one; unless another
    # start (another node on a shared file system) got there first: then ours is removed, also
    # when its DEST arrived between the check and our rename (mv -T then fails on a folder that
    # is not empty). A DEST without .done is an older version's leftover: replaced.
    partial=$1 dest=$2
    if [ -f "$dest/.done" ]; then
      rm -rf -- "$partial" || die "cannot remove $partial"
      echo "data=there"
      exit 0
    fi
    { touch "$partial/.done" && { [ ! -e "$dest" ] || [ -f "$dest/.done" ] || rm -rf -- "$dest"; } &&
      { mv -T -- "$partial" "$dest" || { [ -f "$dest/.done" ] && rm -rf -- "$partial"; }; }; } ||
      die "cannot put the uploaded data in place as $dest"
    echo "data=installed"
    ;;
  watch)
    # A run started there by something else: only its folder is followed.
    dir=$(home_path "$1")
    { cd -- "$dir" && { [ -f run.json ] || [ -f metrics.jsonl ]; }; } ||
      die "$1 is not a run folder (no run.json or metrics.jsonl there yet)"
    echo "run_dir=$(pwd)"
    ;;
  submit)
    script=$1 rundir=$2
    [ -f "$rundir/slurm.env" ] && { cat "$rundir/slurm.env"; exit 0; }
    mkdir -p "$rundir" || die "cannot make the run folder $rundir"
    out=$(cd "$rundir" && sbatch --parsable "$script" 2> "$rundir/sbatch.err") ||
      die "sbatch refused the job: $(tail -n 1 "$rundir/sbatch.err")"
    id=$(printf '%s\n' "$out" | tail -n 1)
    id=${id%%;*}  # "ID" or "ID;CLUSTER"
    case "$id" in '' | *[!0-9_]*) die "sbatch answered no job id: $out" ;; esac
    printf 'job=%s\n' "$id" > "$rundir/slurm.env.tmp" && mv "$rundir/slurm.env.tmp" "$rundir/slurm.env"
    cat "$rundir/slurm.env"
    ;;
  submit-array)
    script=$1 arraydir=$2 pack=$3
    shift 3
    case "$pack" in '' | 0 | *[!0-9]*) die "a pack is a count of runs, 1 or more: $pack" ;; esac
    if [ ! -f "$arraydir/slurm.env" ]; then
      mkdir -p "$arraydir" || die "cannot make the job array's folder $arraydir"
      k=0
      for rundir in "$@"; do
        ln -sfn "$rundir" "$arraydir/$k" || die "cannot link $arraydir/$k to $rundir"
        k=$((k + 1))
      done
      out=$(cd "$arraydir" && sbatch --parsable "$script" 2> "$arraydir/sbatch.err") ||
        die "sbatch refused the job array: $(tail -n 1 "$arraydir/sbatch.err")"
      id=$(printf '%s\n' "$out" | tail -n 1)
      id=${id%%;*}
      case "$id" in '' | *[!0-9]*) die "sbatch answered no job id: $out" ;; esac
      k=0
      for rundir in "$@"; do
        {
          printf 'job=%s_%s\n' "$id" $((k / pack))
          [ "$pack" -eq 1 ] || echo "packed=yes"
        } > "$rundir/slurm.env.tmp" && mv "$rundir/slurm.env.tmp" "$rundir/slurm.env"
        k=$((k + 1))
      done
      printf 'job=%s\n' "$id" > "$arraydir/slurm.env.tmp" && mv "$arraydir/slurm.env.tmp" "$arraydir/slurm.env"
    fi
    cat "$arraydir/slurm.env"
    ;;
  queue)
    # This account's jobs, not a list of ids: squeue refuses a list with one forgotten id in it.
    # -r: an array's tasks each on its own line ("ID_k"), those waiting too, not "ID_[2-7%2]".
    out=$(squeue -h -r -t all -u "$(id -un)" -o '%i|%T|%r|%N|%S' 2>&1) ||
      die "squeue failed: $(printf '%s\n' "$out" | tail -n 1)"
    printf '%s\n' "$out" | sed -n 's/^\([0-9]\)/job \1/p'
    echo "queue=ok"
    ;;
  stop)
    id=$1 rundir=$2
    : > "$rundir/stop-requested" || die "cannot write $rundir/stop-requested"
    # One of a pack's runs: the marker is the stop (`scancel --signal` to a step may reach the
    # whole job); still waiting, its pack will not start it, and its neighbours keep their place.
    if packed_run "$rundir"; then
      if [ "$(squeue -h -j "$id" -o '%T' 2>/dev/null | head -n 1)" = PENDING ]; then
        echo "signalled=waiting"
      else
        echo "signalled=yes"
      fi
      exit 0
    fi
    # A job still waiting has nothing to checkpoint: it is cancelled. (A signal to a waiting task
    # of a job array reaches the array's running tasks instead: another trial would stop.)
    if [ "$(squeue -h -j "$id" -o '%T' 2>/dev/null | head -n 1)" = PENDING ]; then
      out=$(scancel "$id" 2>&1) || die "scancel refused: $out"
      echo "signalled=waiting"
      exit 0
    fi
    out=$(scancel --signal=USR2 "$id" 2>&1) || die "scancel refused: $out"
    echo "signalled=yes"
    ;;
  cancel)
    id=$1 rundir=${2:-}
    # A Kill, not a preemption: the trainer reads the marker when scancel's SIGTERM comes.
    if [ -n "$rundir" ]; then : > "$rundir/kill-requested" || die "cannot write $rundir/kill-requested"; fi
    # A packed run: the marker is the kill (its trainer's ranks are killed; never started, it
    # never will be); its neighbours run on.
    if [ -n "$rundir" ] && packed_run "$rundir"; then echo "cancelled=yes"; exit 0; fi
    # A busy slurmctld may time out and cancel the job all the same (24.11): asked again, a job
    # already ending counts as cancelled.
    tries=1
    until out=$(scancel "$id" 2>&1); do
      case "$out" in
        *"already completing or completed"*) [ $tries -gt 1 ] || die "scancel refused: $out"; break ;;
        *"timed out"*) [ $tries -lt 3 ] || die "scancel refused: $out" ;;
        *) die "scancel refused: $out" ;;
      esac
      tries=$((tries + 1))
      sleep 2
    done
    echo "cancelled=yes"
    ;;
  *)
    echo "usage: traindeck-remote.sh probe|prepare|install|unpack|build|build-job|install-trainer|launch|launched|seed|alive|signal|checkpoint|export|read|stream|have|built|mkdirs|remove|install-data|watch|submit|submit-array|queue|stop|cancel ..." >&2
    exit 2
    ;;
esac

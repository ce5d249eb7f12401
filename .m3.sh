t() { local s=$EPOCHREALTIME; "$@"; local e=$EPOCHREALTIME; echo "T $(( (${e/./}-${s/./})/1000 )) ms: $*"; }
cd /work/main
loop1() { for i in $(seq 20); do /bin/busybox true; done; }
t loop1; t loop1; t loop1
t eval 'cd selftests && RG_TIER=quick ./test_groups >/dev/null; cd ..'
t eval 'echo scan > /sys/kernel/debug/kmemleak'
cat /proc/uptime

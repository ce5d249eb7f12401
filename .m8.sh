cd /work/main
B=/bin/busybox
$B insmod module/res_groups.ko; $B insmod module/numtasks.ko; $B insmod selftests/modules/rg_test_ctl.ko
R=tools/rgctl/rgctl
$R create a/b numtasks:min=10,max=50 test:divisor=10
$R create a/c numtasks:max=dont_care,min=5
$R create e
t() { local s=$EPOCHREALTIME; "$@" >/dev/null 2>&1; local e=$EPOCHREALTIME; echo "T $(( (${e/./}-${s/./})/1000 )) ms: $*"; }
for i in 1 2 3; do t $R set a/b numtasks:max=60; done
for i in 1 2 3; do t $R set a/b numtasks:min=70; done
for i in 1 2 3; do t $R ls; done
for i in 1 2 3; do t $B true; done
strace -c -f $R set a/b numtasks:min=70 2>&1 | tail -25

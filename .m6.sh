cd /work/main
t() { local s=$EPOCHREALTIME; "$@"; local e=$EPOCHREALTIME; echo "T $(( (${e/./}-${s/./})/1000 )) ms: $*"; }
B=/bin/busybox
lp() { for i in 1 2 3 4 5; do $B insmod $1; $B rmmod $2; done; }
t lp selftests/modules/rg_show_page.ko rg_show_page
t lp selftests/modules/rg_show_page.ko rg_show_page
t eval 'for i in 1 2 3 4 5 6 7 8 9 10; do $B true; done'
t lp module/res_groups.ko res_groups
$B insmod module/res_groups.ko
t lp module/numtasks.ko numtasks
t lp module/cpu.ko cpu
t lp module/kmem.ko kmem

T=/sys/kernel/tracing
mount -t tracefs tracefs $T 2>/dev/null
echo 65536 > $T/buffer_size_kb
echo 1 > $T/events/sched/sched_process_exec/enable
echo 1 > $T/events/sched/sched_process_fork/enable
make -s -C selftests run_tests > /run/out.txt 2>&1
echo 0 > $T/tracing_on
tail -1 /run/out.txt
echo "forks $(grep -c sched_process_fork $T/trace) execs $(grep -c sched_process_exec $T/trace)"
grep sched_process_exec $T/trace | grep -o "filename=[^ ]*" | sort | uniq -c | sort -rn | head -40
grep sched_process_fork $T/trace | sed -E 's/^ *(.*)-[0-9]+ +\[.*comm=([^ ]+) pid.*/\1/' | sort | uniq -c | sort -rn | head -30

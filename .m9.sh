cd /work/main/selftests
s=$EPOCHREALTIME; RG_TIER=quick ./test_groups > /dev/null 2>&1; e=$EPOCHREALTIME; echo "T plain $(( (${e/./}-${s/./})/1000 )) ms"
strace -f -w -c -o /run/st.txt ./test_groups > /dev/null 2>&1
head -25 /run/st.txt

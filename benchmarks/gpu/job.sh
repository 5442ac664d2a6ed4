#!/bin/bash
# One line "name|timeout seconds|command": runs the command (log in
# $LOGDIR/name.log) and prints one summary line.
line=$1
name=${line%%|*} rest=${line#*|}
to=${rest%%|*} cmd=${rest#*|}
s=$(date +%s%N)
timeout "$to" bash -c "$cmd" > "$LOGDIR/$name.log" 2>&1
rc=$?
ms=$(( ($(date +%s%N) - s) / 1000000 ))
info=$(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|test cases:|Segmentation|what\(\)|Aborted" "$LOGDIR/$name.log" | tail -3 | tr '\n' ' ' | cut -c1-160)
printf "%-44s rc=%-4s %6d.%ds  %s\n" "$name" "$rc" $((ms / 1000)) $((ms % 1000 / 100)) "$info"

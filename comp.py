/tmp/comp.sh: line 5: 11: Bad file descriptor

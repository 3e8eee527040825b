package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat: USER_HZ, 100 on every Linux
// architecture Go supports.
const userHZ = 100

// ReadCPUTime returns the CPU time (user plus system) process pid has used so far, from
// /proc/<pid>/stat (Linux only), at a resolution of 1/USER_HZ (10ms).
func ReadCPUTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("cannot read CPU time of process %d: %w", pid, err)
	}
	d, err := parseCPUTime(data)
	if err != nil {
		return 0, fmt.Errorf("cannot parse CPU time of process %d: %w", pid, err)
	}
	return d, nil
}

// parseCPUTime extracts utime + stime (fields 14 and 15, in clock ticks) from the text of a
// /proc/<pid>/stat file. The command name (field 2) is in parentheses and may hold spaces
// and parentheses, so fields are counted after its last ')'.
func parseCPUTime(data []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("no command name in %q", data)
	}
	fields := bytes.Fields(data[i+1:]) // fields[0] is field 3 (state)
	const utime, stime = 14 - 3, 15 - 3
	if len(fields) <= stime {
		return 0, fmt.Errorf("%d fields after the command name, want at least %d", len(fields), stime+1)
	}
	var ticks uint64
	for _, f := range []int{utime, stime} {
		n, err := strconv.ParseUint(string(fields[f]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("field %d: %w", f+3, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// Package proc reads this process's resident memory, as the benchmarks report it beside the Node process's.
package proc

import (
	"os"
	"strconv"
	"strings"
)

// RSSBytes is the resident set size from /proc/self/statm; 0 where that cannot be read.
func RSSBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

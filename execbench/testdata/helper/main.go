// Command helper is what execbench's tests run: it does what its flags
// say, so that a test knows what a command did without timing it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	exit := flag.Int("exit", 0, "exit with this status")
	sleep := flag.Duration("sleep", 0, "sleep this long")
	spin := flag.Duration("spin", 0, "keep a CPU busy until this process has used this much CPU time")
	alloc := flag.Int("alloc", 0, "touch this many MiB")
	print := flag.String("print", "", "print this line on standard output")
	stderr := flag.String("stderr", "", "print this line on standard error")
	spew := flag.Int("spew", 0, "print this many KiB on standard output")
	want := flag.String("want-input", "", "exit 4 unless standard input is exactly this")
	counter := flag.String("counter", "", "count runs in this file")
	failAfter := flag.Int("fail-after", 0, "with -counter, exit 5 from this run on")
	flag.Parse()
	if *counter != "" {
		b, _ := os.ReadFile(*counter)
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		n++
		os.WriteFile(*counter, []byte(strconv.Itoa(n)), 0o644)
		if *failAfter > 0 && n >= *failAfter {
			os.Exit(5)
		}
	}
	if *want != "" {
		b, _ := io.ReadAll(os.Stdin)
		if string(b) != *want {
			fmt.Fprintf(os.Stderr, "input %q, want %q\n", b, *want)
			os.Exit(4)
		}
	}
	if *alloc > 0 {
		b := make([]byte, *alloc<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
	}
	if *spin > 0 {
		// CPU time, not wall time: on a busy machine a spin of wall time
		// gets what the scheduler gives it.
		for cpuTime() < *spin {
		}
	}
	time.Sleep(*sleep)
	if *print != "" {
		fmt.Println(*print)
	}
	if *spew > 0 {
		os.Stdout.Write([]byte(strings.Repeat(strings.Repeat("x", 1023)+"\n", *spew)))
	}
	if *stderr != "" {
		fmt.Fprintln(os.Stderr, *stderr)
	}
	os.Exit(*exit)
}

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fmt.Fprintln(os.Stderr, "getrusage:", err)
		os.Exit(3)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// Peak RSS of a provider plugin. Terraform starts plugins itself, so
// /usr/bin/time on terraform reports terraform's own peak (ru_maxrss of the
// largest process, not a sum), and polling /proc can miss the last peak
// before the plugin exits. Instead the dev_overrides directory holds this
// very program under the provider's file name (a symlink); started that way
// it runs the real plugin as its child with the same stdin, stdout (the
// go-plugin handshake line), stderr, arguments and environment, forwards
// SIGINT/SIGTERM, and on exit records the child's rusage from wait4: its
// exact peak RSS and CPU time. Terraform stops plugins gracefully (the
// plugin exits, then the wrapper), so every plugin process is recorded.
const (
	envWrapReal = "KARPENTER_BENCH_WRAP_REAL" // dir of the real plugins, by file name
	envWrapOut  = "KARPENTER_BENCH_WRAP_OUT"  // dir for one JSON record per plugin process
)

// wrapRecord is what the wrapper writes for one plugin process.
type wrapRecord struct {
	Plugin   string        `json:"plugin"`
	MaxRSSKB int64         `json:"maxrss_kib"`
	User     time.Duration `json:"user"`
	Sys      time.Duration `json:"sys"`
	Wall     time.Duration `json:"wall"`
	Exit     int           `json:"exit"`
}

// wrapMain runs when this program was started under a plugin's name.
func wrapMain(realDir, outDir string) {
	name := filepath.Base(os.Args[0])
	cmd := exec.Command(filepath.Join(realDir, name), os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = os.Environ()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "bench wrapper:", err)
		os.Exit(1)
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	rec := wrapRecord{Plugin: name, Wall: time.Since(start), Exit: cmd.ProcessState.ExitCode()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rec.MaxRSSKB = ru.Maxrss // KiB on Linux
		rec.User = time.Duration(ru.Utime.Nano())
		rec.Sys = time.Duration(ru.Stime.Nano())
	}
	if b, err := json.Marshal(rec); err == nil {
		_ = os.WriteFile(filepath.Join(outDir, fmt.Sprintf("%s.%d.json", name, cmd.Process.Pid)), b, 0o644)
	}
	code := rec.Exit
	if code < 0 {
		code = 1
	}
	os.Exit(code)
}

// readWrapRecords reads and removes the records in dir.
func readWrapRecords(dir string) ([]wrapRecord, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []wrapRecord
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r wrapRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, r)
		_ = os.Remove(p)
	}
	return out, nil
}

//go:build unix

package awsclient_test

import (
	"os"
	"syscall"
)

// motoProcAttr puts moto_server (a pyenv shim that execs Python) in its own
// process group, so killProcessGroup reaches whatever it forks.
func motoProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(attr)
	return attr
}

func killProcessGroup(p *os.Process) {
	if p == nil {
		return
	}
	// The negative pid addresses the group; the process itself is the
	// fallback should the group already be gone.
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		_ = p.Kill()
	}
}

//go:build !unix

package awsclient_test

import (
	"os"
	"syscall"
)

func motoProcAttr() *syscall.SysProcAttr { return nil }

func killProcessGroup(p *os.Process) {
	if p != nil {
		_ = p.Kill()
	}
}

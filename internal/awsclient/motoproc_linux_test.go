//go:build linux

package awsclient_test

import "syscall"

// setParentDeathSignal kills moto_server if the test binary dies without
// running its cleanups (e.g. go test's -timeout panic).
func setParentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

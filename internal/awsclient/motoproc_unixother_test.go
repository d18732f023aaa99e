//go:build unix && !linux

package awsclient_test

import "syscall"

func setParentDeathSignal(*syscall.SysProcAttr) {}

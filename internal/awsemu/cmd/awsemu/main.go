// Command awsemu serves the local AWS endpoint emulator (package awsemu):
//
//	go run ./internal/awsemu/cmd/awsemu -fixtures DIR -listen 127.0.0.1:4566
//
// The first line on stdout is "listening on http://ADDR"; it serves until
// SIGINT or SIGTERM.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "awsemu:", err)
		os.Exit(2)
	}
}

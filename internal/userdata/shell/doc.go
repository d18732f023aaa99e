// Package shell reads userData scripts: bash parsed with mvdan.cc/sh (the
// simple commands, the bootstrap.sh calls, the variables assigned before a
// call and what they expand to, systemd's splitting of an environment
// value) and PowerShell split into statements and words with its variables.
// It holds no rules; package lint draws its findings from what it reads.
package shell

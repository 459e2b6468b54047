//go:build unix

package space

import "syscall"

// mkfifo makes a named pipe at path: a file that is not a regular file.
func mkfifo(path string) { syscall.Mkfifo(path, 0o644) }

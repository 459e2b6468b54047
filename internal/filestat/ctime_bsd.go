//go:build unix && !linux

package filestat

import "syscall"

func ctimeOf(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }

func mtimeOf(st *syscall.Stat_t) int64 { return st.Mtimespec.Nano() }

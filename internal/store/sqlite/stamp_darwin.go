package sqlite

import "syscall"

func statCtime(st *syscall.Stat_t) (sec, nsec int64) { return st.Ctimespec.Unix() }

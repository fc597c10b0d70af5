package cli_test

import "golang.org/x/sys/unix"

// getTermios is the ioctl reading a terminal's settings.
const getTermios = unix.TCGETS

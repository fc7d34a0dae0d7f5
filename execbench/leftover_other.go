//go:build !linux

package execbench

// groupMembers names the processes of a process group: not known here.
func groupMembers(int) []string { return nil }

// canName is true where groupMembers can name a process group's members.
const canName = false

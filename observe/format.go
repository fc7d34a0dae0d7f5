package observe

import "fmt"

func count(f float64) string {
	if f >= 10 {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.1f", f)
}

// FormatBytes formats a byte count with decimal (SI) prefixes and three
// significant digits: "27.9 GB".
func FormatBytes(b float64) string { return bytesStr(b) }

// bytesIEC formats a byte count with binary prefixes and three
// significant digits ("3.35 GiB"), as benchstat's tables print B/s
// ("3.350Gi"), so that a note quoting a result matches the table.
func bytesIEC(b float64) string {
	for _, u := range []struct {
		div  float64
		unit string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if v := b / u.div; v >= 100 {
			return fmt.Sprintf("%.0f %s", v, u.unit) // up to 1023, where %.3g would write 1.02e+03
		} else if v >= 1 {
			return fmt.Sprintf("%.3g %s", v, u.unit)
		}
	}
	return fmt.Sprintf("%.0f B", b)
}

// bytesStr formats a byte count with decimal (SI) prefixes.
func bytesStr(b float64) string {
	for _, u := range []struct {
		div  float64
		unit string
	}{{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}} {
		if b >= u.div {
			return fmt.Sprintf("%.3g %s", b/u.div, u.unit)
		}
	}
	return fmt.Sprintf("%.0f B", b)
}

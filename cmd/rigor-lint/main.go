// Command rigor-lint runs rigor's benchmark checks (package lint) as a
// standalone analyzer driver or as a vet tool:
//
//	rigor-lint ./...
//	go vet -vettool=$(which rigor-lint) ./...
//
// Under go vet the checks see through calls into other packages (facts
// about pure functions travel with the build); `rigor lint` gives the same
// findings for calls within a package, into the packages it imports from
// a module (it type-checks those for the purity pass) and into the
// standard library's table of pure functions, and takes less time. Each check has a flag to turn it off (-elided=false)
// and -fix applies the mechanical fixes.
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/rigorbench/rigor/lint"
)

func main() { multichecker.Main(lint.Analyzers()...) }

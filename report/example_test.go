package report_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pleat-dev/pleat/report"
)

func Example() {
	r := report.New("Timings")
	r.Meta = []report.KV{{Key: "generator", Value: "pleat example"}}
	if err := r.Table(report.Table{
		Caption: "Per-stage time",
		Header:  []string{"stage", "ms/frame"},
		Rows: [][]string{
			{"skinning", report.Num(0.3125, 3)},
			{"coarse <sim>", report.Num(2.1, 3)},
		},
	}); err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		fmt.Println(err)
		return
	}
	// Print the table part of the page.
	s := buf.String()
	fmt.Println(s[strings.Index(s, `<div class="table">`):strings.Index(s, "</main>")])
	// Output:
	// <div class="table"><table>
	// <caption>Per-stage time</caption>
	// <thead><tr><th>stage</th><th class="num">ms/frame</th></tr></thead>
	// <tbody>
	// <tr><td>skinning</td><td class="num">0.312</td></tr>
	// <tr><td>coarse &lt;sim&gt;</td><td class="num">2.10</td></tr>
	// </tbody>
	// </table></div>
}

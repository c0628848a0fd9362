package viewer

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
)

// OpenBrowser asks the desktop to show url (an http:// URL such as
// Server.URL) in the default browser: xdg-open on Linux and the BSDs, open
// on macOS, rundll32 on Windows. It returns once the helper has started,
// without waiting for the browser.
func OpenBrowser(url string) error {
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return fmt.Errorf("viewer: OpenBrowser: %q is not an http URL", url)
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("viewer: opening a browser: %w", err)
	}
	go cmd.Wait()
	return nil
}

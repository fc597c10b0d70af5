package web

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestBrowser_PasteScreenshotIntoComment: a person pastes an image into
// the comment box and sends it; the comment carries the picture and the
// ticket page shows it inline.
func TestBrowser_PasteScreenshotIntoComment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "The menu is cut off", board.InProgress)
	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	steps(t, ctx, "open the ticket", chromedp.Navigate(e.ts.URL+"/p/demo/1"), chromedp.WaitVisible(chromedp.CSS("#reply-text")))
	// A 1 × 1 PNG on the clipboard, pasted into the text box.
	pasted := eval[int](t, ctx, `(() => {
		const b64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
		const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
		const dt = new DataTransfer();
		dt.items.add(new File([bytes], "image.png", {type: "image/png"}));
		const ta = document.getElementById("reply-text");
		ta.value = "Here it is";
		ta.dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
		return document.getElementById("reply-files").files.length;
	})()`)
	if pasted != 1 {
		t.Fatalf("the picker holds %d files after the paste, want 1", pasted)
	}
	steps(t, ctx, "send", click("#send-reply"))
	waitFor(t, ctx, "the picture shows", `document.querySelector(".attachment img") !== null && document.querySelector(".attachment img").naturalWidth === 1`)
	as, err := e.db.Attachments(context.Background(), tk.Ref())
	if err != nil || len(as) != 1 {
		t.Fatalf("attachments = %+v, %v", as, err)
	}
	if a := as[0]; a.MediaType != board.MediaPNG || a.Name != "pasted-1.png" || a.CommentID == "" {
		t.Errorf("attachment = %+v, want pasted-1.png, a PNG on the comment", a)
	}
}

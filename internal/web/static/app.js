// Bonsai web UI. No inline scripts: the CSP allows only files from /static.
(function () {
  "use strict";

  var csrf = document.querySelector('meta[name="csrf-token"]');
  csrf = csrf ? csrf.content : "";

  // toast shows a short message (an error, a refused move) for a few seconds.
  var toastTimer;
  function toast(msg, kind) {
    var el = document.getElementById("toast");
    if (!el) return;
    el.textContent = msg;
    el.className = kind || "error";
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { el.hidden = true; }, 8000);
  }
  window.bonsaiToast = toast;

  // htmx: send the CSRF token with every request and show failures.
  document.addEventListener("htmx:configRequest", function (e) {
    e.detail.headers["X-CSRF-Token"] = csrf;
  });
  document.addEventListener("htmx:responseError", function (e) {
    toast(e.detail.xhr.responseText || ("Request failed: " + e.detail.xhr.status));
  });
  document.addEventListener("htmx:sendError", function () {
    toast("The server did not answer. Is bonsai serve still running?");
  });

  // api calls the JSON API with the session cookie and the CSRF token.
  function api(method, path, body) {
    return fetch(path, {
      method: method,
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, "Accept": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (!res.ok) {
          var msg = data && data.error ? data.error.message : "request failed with status " + res.status;
          throw new Error(msg);
        }
        return data;
      });
    });
  }

  // Times of the Schedules page in the viewer's own zone.
  function viewerTimes() {
    document.querySelectorAll("time.viewer-zone").forEach(function (el) {
      var d = new Date(el.getAttribute("datetime"));
      if (isNaN(d.getTime())) return;
      el.textContent = d.toLocaleString(undefined, { weekday: "short", year: "numeric", month: "2-digit", day: "2-digit",
        hour: "2-digit", minute: "2-digit", timeZoneName: "short" }) + " (your time)";
    });
  }
  document.addEventListener("DOMContentLoaded", viewerTimes);
  // A new schedule's zone defaults to the viewer's.
  document.addEventListener("DOMContentLoaded", function () {
    var tz = document.querySelector("input[data-zone-from-browser]");
    var zone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (tz && zone) tz.value = zone;
  });

  document.addEventListener("DOMContentLoaded", function () {
    var boardEl = document.getElementById("board");
    if (boardEl) initBoard(boardEl);
  });

  // ---- Board ----

  function initBoard(boardEl) {
    var slug = boardEl.dataset.slug;
    var states = Array.prototype.map.call(boardEl.querySelectorAll(".cards"), function (c) { return c.dataset.state; });
    var filterEl = document.getElementById("filter");
    var query = filterEl ? filterEl.value.trim().toLowerCase() : "";

    function list(state) { return boardEl.querySelector('.cards[data-state="' + state + '"]'); }
    // setCounts shows the columns' counts the server sends after each
    // change (columns show at most 100 cards, so the DOM cannot count).
    function setCounts(counts) {
      Object.keys(counts).forEach(function (state) {
        var el = boardEl.querySelector('.column[data-state="' + state + '"] .count');
        if (el) { el.dataset.total = counts[state]; el.textContent = counts[state]; }
      });
    }

    // before reports whether card a sorts before card b: priority, then
    // most recently updated, as the server sorts.
    function before(a, b) {
      var pa = +a.dataset.priority, pb = +b.dataset.priority;
      if (pa !== pb) return pa < pb;
      var ua = +a.dataset.updated, ub = +b.dataset.updated;
      if (ua !== ub) return ua > ub;
      return +a.dataset.number > +b.dataset.number;
    }

    function place(cardEl) {
      var l = list(cardEl.dataset.state);
      if (!l) return;
      var next = null;
      for (var i = 0; i < l.children.length; i++) {
        var c = l.children[i];
        if (c !== cardEl && before(cardEl, c)) { next = c; break; }
      }
      l.insertBefore(cardEl, next);
    }

    function matches(cardEl) {
      if (!query) return true;
      var q = query.replace(/^#/, "");
      if (/^\d+$/.test(q) && cardEl.dataset.number === q) return true;
      return cardEl.dataset.title.indexOf(query) !== -1;
    }
    function applyFilter(cardEl) { cardEl.hidden = !matches(cardEl); }

    // upsert puts a card rendered by the server in its column, replacing the
    // old one wherever it was.
    function upsert(html) {
      var tpl = document.createElement("template");
      tpl.innerHTML = html.trim();
      var fresh = tpl.content.firstElementChild;
      if (!fresh || !fresh.classList.contains("card")) return;
      var old = document.getElementById(fresh.id);
      var hadFocus = old && document.activeElement === old;
      if (old) old.remove();
      applyFilter(fresh);
      place(fresh);
      if (hadFocus) fresh.focus();
      fresh.classList.add("flash");
      setTimeout(function () { fresh.classList.remove("flash"); }, 1200);
    }
    boardEl.upsertCard = upsert;

    // Live updates: the SSE extension delivers "card" events to #live-cards;
    // take them over instead of letting htmx swap.
    document.body.addEventListener("htmx:sseBeforeMessage", function (e) {
      if (e.target && e.target.id === "live-cards") {
        e.preventDefault();
        upsert(e.detail.data);
      } else if (e.target && e.target.id === "live-counts") {
        e.preventDefault();
        try { setCounts(JSON.parse(e.detail.data)); } catch (err) { /* a bad message changes nothing */ }
      }
    });

    // Quick add: the response is the new card.
    var quick = document.getElementById("quick-add");
    if (quick) {
      var quickErr = document.getElementById("quick-error");
      quick.addEventListener("htmx:afterRequest", function (e) {
        if (e.detail.successful) {
          upsert(e.detail.xhr.responseText);
          quick.reset();
          quickErr.hidden = true;
          document.getElementById("quick-title").focus();
        } else if (e.detail.xhr) {
          // Shown next to the field, with what was typed kept.
          quickErr.textContent = e.detail.xhr.responseText || "The ticket was not created.";
          quickErr.hidden = false;
        }
      });
      // The error shows next to the field, not as a notice.
      quick.addEventListener("htmx:responseError", function (e) { e.stopPropagation(); });
    }

    // move asks the server to move a card; a refused move puts the card
    // back where it was and shows the rule.
    function move(cardEl, to, undo) {
      var from = cardEl.dataset.state;
      if (from === to) return;
      cardEl.classList.add("pending");
      api("POST", "/api/projects/" + slug + "/tickets/" + cardEl.dataset.number + "/move", { state: to })
        .then(function (t) {
          cardEl.classList.remove("pending");
          if (!cardEl.isConnected) return; // a live update already replaced it
          cardEl.dataset.state = t.state;
          cardEl.dataset.updated = Date.parse(t.updatedAt);
          place(cardEl);
          cardEl.focus();
        })
        .catch(function (err) {
          cardEl.classList.remove("pending");
          if (!cardEl.isConnected) { toast(err.message); return; } // replaced by a live update
          undo();
          cardEl.classList.add("refused");
          setTimeout(function () { cardEl.classList.remove("refused"); }, 1500);
          cardEl.focus();
          toast(err.message);
        });
    }

    // Drag and drop between columns. The order inside a column is the
    // server's (priority, then recency), so dropping only changes the state.
    if (window.Sortable) {
      states.forEach(function (st) {
        window.Sortable.create(list(st), {
          group: "board", sort: false, animation: 120, draggable: ".card",
          ghostClass: "ghost", forceFallback: true,
          onEnd: function (e) {
            if (e.from === e.to) return;
            var item = e.item, from = e.from, oldIndex = e.oldIndex;
            move(item, e.to.dataset.state, function () {
              from.insertBefore(item, from.children[oldIndex] || null);
            });
          },
        });
      });
    }

    // Filter as you type; Enter asks the server (it also finds cards beyond
    // a column's limit).
    if (filterEl) {
      filterEl.addEventListener("input", function () {
        query = filterEl.value.trim().toLowerCase();
        boardEl.querySelectorAll(".card").forEach(applyFilter);
      });
      filterEl.addEventListener("keydown", function (e) {
        if (e.key === "Escape") { filterEl.value = ""; filterEl.dispatchEvent(new Event("input")); filterEl.blur(); }
      });
    }

    // Keyboard: c new ticket, / filter, arrows move the focus, Shift+arrows
    // move the card, Enter opens it (cards are links).
    function visible(state) {
      var l = list(state);
      return l ? Array.prototype.filter.call(l.children, function (c) { return !c.hidden; }) : [];
    }
    document.addEventListener("keydown", function (e) {
      var t = e.target;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
      // Focus after the key's own events, so the key is not typed into the field.
      if (e.key === "c" && !e.shiftKey) { e.preventDefault(); setTimeout(function () { document.getElementById("quick-title").focus(); }); return; }
      if (e.key === "/") { e.preventDefault(); setTimeout(function () { filterEl.focus(); filterEl.select(); }); return; }
      if (["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"].indexOf(e.key) === -1) return;
      var cur = t && t.closest ? t.closest(".card") : null;
      if (!cur) {
        for (var i = 0; i < states.length; i++) {
          var v0 = visible(states[i]);
          if (v0.length) { e.preventDefault(); v0[0].focus(); return; }
        }
        return;
      }
      e.preventDefault();
      var si = states.indexOf(cur.dataset.state);
      if (e.shiftKey && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
        var ti = si + (e.key === "ArrowLeft" ? -1 : 1);
        if (ti < 0 || ti >= states.length) return;
        var parent = cur.parentNode, next = cur.nextSibling;
        move(cur, states[ti], function () { parent.insertBefore(cur, next); });
        return;
      }
      var col = visible(cur.dataset.state), idx = col.indexOf(cur);
      if (e.key === "ArrowUp" && idx > 0) col[idx - 1].focus();
      if (e.key === "ArrowDown" && idx < col.length - 1) col[idx + 1].focus();
      if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
        for (var j = si + (e.key === "ArrowLeft" ? -1 : 1); j >= 0 && j < states.length; j += (e.key === "ArrowLeft" ? -1 : 1)) {
          var v = visible(states[j]);
          if (v.length) { v[Math.min(idx, v.length - 1)].focus(); return; }
        }
      }
    });
  }
})();

// Keep the live activity, and the message being written, scrolled to
// their newest text. Each update of the message being written replaces
// it: the parts a person opened or closed stay so.
var partialOpen = null;
document.addEventListener("htmx:sseBeforeMessage", function (e) {
  if (e.target && e.target.id === "activity-partial") {
    partialOpen = Array.prototype.map.call(e.target.querySelectorAll("details"), function (d) { return d.open; });
  }
});
document.addEventListener("htmx:sseMessage", function (e) {
  var t = e.target;
  if (!t || (t.id !== "activity" && t.id !== "activity-partial")) return;
  if (t.id === "activity-partial" && partialOpen) {
    t.querySelectorAll("details").forEach(function (d, i) { if (i < partialOpen.length) d.open = partialOpen[i]; });
  }
  t.scrollTop = t.scrollHeight;
  if (t.id === "activity-partial") t.querySelectorAll("pre").forEach(function (p) { p.scrollTop = p.scrollHeight; });
});

// A running tool call counts its time: data-since is when it started, in
// Unix milliseconds of the server's clock; the activity section's
// data-server-now, the server's time when the page was made, says how far
// the viewer's clock is off. The format is render.go's elapsed.
(function () {
  // The section may arrive after the page (a run that starts while it is
  // open): its time is read when first seen.
  var skew = 0, seen = null;
  function readSkew() {
    var now = document.querySelector("[data-server-now]");
    if (now && now !== seen) {
      seen = now;
      skew = Number(now.getAttribute("data-server-now")) - Date.now();
    }
  }
  readSkew();
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function elapsed(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return s + " s";
    if (s < 3600) return Math.floor(s / 60) + " min " + pad(s % 60) + " s";
    return Math.floor(s / 3600) + " h " + pad(Math.floor(s % 3600 / 60)) + " min";
  }
  setInterval(function () {
    readSkew();
    document.querySelectorAll(".elapsed[data-since]").forEach(function (el) {
      var since = Number(el.getAttribute("data-since"));
      if (since > 0) el.textContent = elapsed(Date.now() + skew - since);
    });
  }, 1000);
})();

// Shared by every cardtable screen: role tokens, the table id, the API, the live stream and card drawing.
// A token arrives once in the link (?token=...) and is kept for the browser tab in sessionStorage, so it
// does not stay in the address bar.
"use strict";

const CT = (() => {
  const params = new URLSearchParams(location.search);

  function token(role) {
    const key = "cardtable.token." + role;
    const given = params.get("token");
    if (given) {
      sessionStorage.setItem(key, given);
      params.delete("token");
      const rest = params.toString();
      history.replaceState(null, "", location.pathname + (rest ? "?" + rest : ""));
    }
    return sessionStorage.getItem(key) || "";
  }

  // A screen opened without its token, or with one the table refuses, asks for it (instead of an empty page).
  // The token is kept for this browser tab like one that came in the link, and the page starts again.
  function askToken(role, why, roleLabel) {
    if (document.querySelector("[data-testid=token-form]")) return;
    const overlay = document.createElement("div");
    overlay.className = "picker";
    overlay.dataset.testid = "token-form";
    overlay.innerHTML = `<form class="stackcol token-form">
      <div class="who" data-testid="token-why">${escapeHtml(why)}</div>
      <label for="token-input" class="muted">Enter the ${escapeHtml(roleLabel || role)} token: it is printed when
        the table starts, and kept in the table's data folder (tokens.json).</label>
      <input id="token-input" type="password" autocomplete="off" autocapitalize="off" spellcheck="false"
        aria-label="${escapeHtml(roleLabel || role)} token" data-testid="token-input">
      <div class="row"><button class="call" type="submit" data-testid="token-ok">Open this screen</button>
        <a class="btn secondary" href="/">Other screens</a></div>
    </form>`;
    overlay.querySelector("form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const value = overlay.querySelector("input").value.trim();
      if (!value) return;
      sessionStorage.setItem("cardtable.token." + role, value);
      location.reload();
    });
    document.body.appendChild(overlay);
    overlay.querySelector("input").focus();
  }

  async function tableId() {
    const named = params.get("table");
    if (named) return named;
    const tables = await (await fetch("/api/tables")).json();
    return tables.length ? tables[0].table_id : "t1";
  }

  async function api(method, path, tok, body) {
    const headers = { "Content-Type": "application/json" };
    if (tok) headers["Authorization"] = "Bearer " + tok;
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      const err = (data && data.error) || { message: res.statusText };
      toast(err.message + (err.rule ? " — " + err.rule : ""));
      const failure = new Error(err.message);
      failure.code = err.code;
      throw failure;
    }
    return data;
  }

  let toastTimer = null;
  function toast(text) {
    let el = document.querySelector(".error-toast");
    if (!el) {
      el = document.createElement("div");
      el.className = "error-toast";
      el.setAttribute("role", "alert");
      document.body.appendChild(el);
    }
    el.textContent = text;
    el.classList.remove("hidden");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => el.classList.add("hidden"), 6000);
  }

  // One stream per view; reconnects after a drop. onState gets every state message.
  function stream(table, view, tok, onState, connEl) {
    let ws = null;
    let wait = 500;
    function open() {
      const proto = location.protocol === "https:" ? "wss:" : "ws:";
      // The token goes in a header (the subprotocol list), never in the URL once the page has loaded.
      const protocols = tok ? ["cardtable", "bearer." + tok] : ["cardtable"];
      ws = new WebSocket(`${proto}//${location.host}/ws/tables/${encodeURIComponent(table)}/${view}`, protocols);
      ws.onopen = () => { wait = 500; setConn(true); };
      ws.onmessage = (ev) => {
        const msg = JSON.parse(ev.data);
        if (msg.type === "state") onState(msg.state, msg.seq);
      };
      ws.onclose = (ev) => {
        setConn(false, ev.code === 4403 ? "token refused" : "reconnecting");
        if (ev.code === 4403) {
          askToken(view, tok ? `That token does not open this screen: it needs the ${view} token.`
                             : `This screen needs the ${view} token.`);
          return;
        }
        if (ev.code === 4404) return;
        setTimeout(open, wait);
        wait = Math.min(wait * 2, 5000);
      };
    }
    function setConn(live, why) {
      if (!connEl) return;
      connEl.className = "conn " + (live ? "live" : "down");
      connEl.textContent = live ? "live" : why || "offline";
    }
    open();
    return () => ws && ws.close();
  }

  const SUIT = { c: "♣", d: "♦", h: "♥", s: "♠" };
  function cardEl(code, faceDown) {
    const el = document.createElement("span");
    el.className = "card";
    if (faceDown) { el.classList.add("back"); el.setAttribute("aria-label", "face-down card"); return el; }
    if (code === "??") { el.classList.add("unknown"); el.textContent = "?"; el.setAttribute("aria-label", "unread card"); return el; }
    const suit = code[1];
    if (suit === "h" || suit === "d") el.classList.add("red");
    const rank = code[0] === "T" ? '<span class="ten">10</span>' : `<span>${escapeHtml(code[0])}</span>`;
    el.innerHTML = `${rank}<span class="s">${SUIT[suit] || "?"}</span>`;
    el.setAttribute("aria-label", code);
    el.dataset.code = code;
    return el;
  }

  // Cards of one seat: the shown ones face up, the rest as backs, or (floor/broadcast) the hole cards.
  function seatCards(seat, withHole) {
    const box = document.createElement("div");
    box.className = "cards";
    if (withHole && seat.hole && seat.hole.length) {
      const unknown = seat.hole.filter((c) => c === "??").length;
      if (unknown && seat.candidates && seat.candidates.length) {
        // After a draw entered as a count: the cards served are certain; of the cards held before, the seat
        // keeps `unknown`, nobody knows which until they are shown. The floor sees every one of them.
        const both = document.createElement("div");
        both.className = "candidates";
        for (const c of seat.hole) if (c !== "??") { const el = cardEl(c, false); el.classList.add("served"); box.appendChild(el); }
        both.appendChild(box);
        const row = document.createElement("div");
        row.className = "cards maybe-row";
        row.dataset.testid = "candidates-" + seat.seat;
        // Settled (the shoe read the other ones coming back as discards): the cards left are the ones he holds.
        const settled = seat.candidates.length === unknown;
        row.title = settled ? "holds these (the rest came back to the shoe)" : `keeps ${unknown} of these ${seat.candidates.length}`;
        row.dataset.settled = settled ? "yes" : "no";
        const label = document.createElement("span");
        label.className = "keeps";
        label.textContent = settled ? "holds" : `keeps ${unknown} of`;
        row.appendChild(label);
        for (const c of seat.candidates) { const el = cardEl(c, false); if (!settled) el.classList.add("maybe"); row.appendChild(el); }
        both.appendChild(row);
        return both;
      }
      for (const c of seat.hole) box.appendChild(cardEl(c, false));
      return box;
    }
    const shown = seat.shown || [];
    for (const c of shown) box.appendChild(cardEl(c, false));
    for (let i = shown.length; i < seat.cards; i++) box.appendChild(cardEl("", true));
    return box;
  }

  const PHASES = { waiting: "Waiting for the next hand", shuffling: "Shuffling and verifying the deck",
    dealing: "Dealing", betting: "Betting", drawing: "The draw", showdown: "Showdown", complete: "Hand over",
    paused: "PAUSED", halted: "HALTED — call the floor" };
  // The oval is for the public and the broadcast: a stopped table says so without the detail.
  const PUBLIC_PHASES = { ...PHASES, paused: "Hand paused", halted: "Floor called, hand paused" };

  // Seats around an oval, seat 1 at the dealer's left going clockwise. On a portrait screen the oval is
  // tall and the seats keep in from the sides, so that no seat box crosses the screen's edge.
  function seatPosition(i, n, portrait) {
    const angle = Math.PI / 2 + (2 * Math.PI * (i + 0.5)) / n;
    const rx = portrait ? 37 : 44;
    const ry = portrait ? 41 : 42;
    return { left: 50 + rx * Math.cos(angle), top: 50 + ry * Math.sin(angle) };
  }

  function renderOval(root, state, withHole) {
    root.innerHTML = "";
    const felt = document.createElement("div");
    felt.className = "felt";
    root.appendChild(felt);
    const center = document.createElement("div");
    center.className = "center";
    const carried = state.carried_pot ? `<small>carried from earlier deals: ${state.carried_pot}</small>` : "";
    const awards = (state.awards || []).map((a) => `Seat ${a.seat} wins ${a.amount}${a.hand ? " — " + escapeHtml(a.hand) : ""}`).join("<br>");
    const phase = PUBLIC_PHASES[state.phase] || state.phase;
    const message = state.message === phase ? "" : state.message || "";
    center.innerHTML = `<div class="pot" data-testid="pot">Pot ${state.pot_total}${carried}</div>
      <div class="phase" data-testid="phase">${state.hand ? "Hand #" + state.hand + " · " : ""}${escapeHtml(phase)}</div>
      <div class="message" data-testid="message">${escapeHtml(message)}</div>
      <div class="message" style="color: var(--accent)">${awards}</div>`;
    root.appendChild(center);
    const n = state.seats.length;
    const portrait = root.clientHeight > root.clientWidth;
    state.seats.forEach((seat, i) => {
      const pos = seatPosition(i, n, portrait);
      const el = document.createElement("div");
      el.className = "seat";
      el.dataset.seat = seat.seat;
      el.style.left = pos.left + "%";
      el.style.top = pos.top + "%";
      if (seat.status === "empty") el.classList.add("empty");
      if (seat.to_act) el.classList.add("turn");
      if (seat.status === "folded") el.classList.add("folded");
      const tags = [];
      if (seat.opener) tags.push('<span class="opener-tag">opener</span>');
      if (seat.status === "folded") tags.push("folded");
      if (seat.status === "all_in") tags.push("all in");
      if (seat.status === "sitting_out") tags.push("sitting out");
      if (seat.drew !== null && seat.drew !== undefined) tags.push(seat.drew === 0 ? "stood pat" : `drew ${seat.drew}`);
      el.innerHTML = `<div class="name">${escapeHtml(seat.name || "Open seat")} <span class="num">· ${seat.seat}</span></div>
        <div class="stack">${seat.status === "empty" ? "&nbsp;" : seat.stack + " chips"}</div>
        <div class="bet">${seat.bet ? "bet " + seat.bet : ""}</div>`;
      el.appendChild(seatCards(seat, withHole));
      const tag = document.createElement("div");
      tag.className = "tag";
      tag.innerHTML = tags.join(" · ");
      el.appendChild(tag);
      if (seat.button) {
        const b = document.createElement("div");
        b.className = "dealer-btn";
        b.textContent = "D";
        b.title = "dealer button";
        el.appendChild(b);
      }
      root.appendChild(el);
    });
  }

  // The seats as a grid of tiles (dealer console, floor view): readable at arm's length on a tablet.
  function renderGrid(root, state, withHole) {
    root.innerHTML = "";
    const head = document.createElement("div");
    head.className = "grid-head";
    const carried = state.carried_pot ? ` <small>(carried ${state.carried_pot})</small>` : "";
    const awards = (state.awards || []).map((a) => `Seat ${a.seat} wins ${a.amount}${a.hand ? " — " + escapeHtml(a.hand) : ""}`).join(" · ");
    head.innerHTML = `<span class="pot" data-testid="pot">Pot ${state.pot_total}${carried}</span>
      <span class="phase">${state.hand ? "Hand #" + state.hand + " · " : ""}${PHASES[state.phase] || state.phase}</span>
      <span class="message">${escapeHtml(state.message || "")}</span>
      ${awards ? `<span class="message awards">${awards}</span>` : ""}`;
    root.appendChild(head);
    const grid = document.createElement("div");
    grid.className = "seat-grid";
    for (const seat of state.seats) {
      const el = document.createElement("div");
      el.className = "tile";
      el.dataset.seat = seat.seat;
      if (seat.status === "empty") el.classList.add("empty");
      if (seat.to_act) el.classList.add("turn");
      if (seat.status === "folded") el.classList.add("folded");
      const tags = [];
      if (seat.button) tags.push('<span class="btn-tag">D</span>');
      if (seat.opener) tags.push('<span class="opener-tag">opener</span>');
      if (seat.status === "folded") tags.push("folded");
      if (seat.status === "all_in") tags.push("all in");
      if (seat.drew !== null && seat.drew !== undefined) tags.push(seat.drew === 0 ? "stood pat" : `drew ${seat.drew}`);
      el.innerHTML = `<div class="tile-top"><span class="name">${escapeHtml(seat.name || "Open")}</span><span class="num">seat ${seat.seat}</span></div>
        <div class="tile-mid"><span class="stack">${seat.status === "empty" ? "" : seat.stack}</span><span class="bet">${seat.bet ? "bet " + seat.bet : ""}</span></div>`;
      el.appendChild(seatCards(seat, withHole));
      const tag = document.createElement("div");
      tag.className = "tag";
      tag.innerHTML = tags.join(" · ");
      el.appendChild(tag);
      grid.appendChild(el);
    }
    root.appendChild(grid);
  }

  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  }

  function renderLog(el, log) {
    el.innerHTML = "";
    for (const entry of log) {
      const d = document.createElement("div");
      d.textContent = entry.text;
      el.appendChild(d);
    }
    el.scrollTop = el.scrollHeight;
  }

  return { token, askToken, tableId, api, toast, stream, cardEl, seatCards, renderOval, renderGrid, renderLog, escapeHtml, PHASES, params };
})();

// The page: conversations in the sidebar, the chosen council, the transcript and the question box.
// Every text from the server or a model goes in as text, or through the escaping Markdown renderer.

import { ApiError, api, forgetKey, followRun, onKeyNeeded, saveKey, storedKey } from "./api.js";
import { h } from "./chart.js";
import { RunView, dollars } from "./run_view.js";

const $ = (id) => document.getElementById(id);
const THEMES = ["auto", "light", "dark"];

const state = {
  options: null,
  conversations: [],
  current: null, // the open conversation, as the API returns it
  picks: null, // the council chosen before a new conversation exists
  stops: [], // functions that stop following the open conversation's runs
  running: null, // run id of the open conversation's unfinished run
  views: [], // the open conversation's run views (a recovered one replaces its view's root on the page)
  images: [], // images attached to the next question: {name, url} with url a data: URL
};

// What the members' APIs all take; anything else is refused here, naming the file.
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
const MAX_IMAGES = 4;

/** Show `message` above the transcript (none: hide it); `keyNeeded` adds the button that asks for a key. */
function notice(message, keyNeeded = false) {
  $("notice-text").textContent = message || "";
  $("key-retry").hidden = !keyNeeded;
  $("notice").hidden = !message;
}

async function guarded(work) {
  try {
    notice("");
    return await work();
  } catch (error) {
    const keyNeeded = error instanceof ApiError && error.code === "api_key_needed";
    notice(error.message || String(error), keyNeeded);
    // The key dialog closed with Escape hands focus back to where it was, the body at load: give it a place.
    const lost = !document.activeElement || document.activeElement === document.body
      || $("key-dialog").contains(document.activeElement);
    if (keyNeeded && lost) $("key-retry").focus();
    return undefined;
  }
}

/** Say `text` to a screen reader: emptied first, so the same words said twice are heard twice. */
function announce(text) {
  const box = $("announcer");
  box.textContent = "";
  if (text) setTimeout(() => { box.textContent = text; }, 100);
}

/** The line under the question box's tools: why a question was not sent, or where a choice was saved. */
function composerStatus(text) {
  $("composer-status").textContent = text || "";
}

// -- theme and key -------------------------------------------------------------
function applyTheme(theme) {
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  $("theme-toggle").textContent = `Theme: ${theme}`;
}

function setupTheme() {
  let theme = localStorage.getItem("council.theme");
  if (!THEMES.includes(theme)) theme = "auto";
  applyTheme(theme);
  $("theme-toggle").addEventListener("click", () => {
    theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length];
    localStorage.setItem("council.theme", theme);
    applyTheme(theme);
  });
}

let pendingKey = null;

function askForKey(message) {
  // Several calls can fail at once; they all wait for the same answer.
  if (pendingKey) return pendingKey;
  const dialog = $("key-dialog");
  $("key-message").textContent = message || "This server needs an API key. It is kept in this browser only.";
  $("key-input").value = "";
  dialog.returnValue = "";
  pendingKey = new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      pendingKey = null;
      // Escape closes the dialog without saving whatever was typed.
      const key = dialog.returnValue === "save" ? $("key-input").value.trim() : "";
      $("forget-key").hidden = !key;
      resolve(key || null);
    }, { once: true });
  });
  dialog.showModal();
  $("key-input").focus();
  return pendingKey;
}

/** The notice's "Enter API key" button: ask again, then load what could not be loaded without it. */
async function enterKey() {
  const key = await askForKey("");
  if (!key) return;
  saveKey(key);
  await guarded(async () => {
    if (!state.options) await load();
    $("question").focus();
  });
}

// -- the council chosen --------------------------------------------------------
function currentPicks() {
  return state.current
    ? { members: state.current.members, chairman: state.current.chairman, rubric: state.current.rubric,
        preset: state.current.preset || null }
    : state.picks;
}

function rubricOption(id) {
  return state.options.rubrics.find((r) => r.id === id) || state.options.rubrics[0];
}

function drawSettings() {
  const picks = currentPicks();
  const presets = state.options.presets || [];
  const preset = $("preset-choice");
  preset.replaceChildren(h("option", { value: "", text: "As configured: every member reviews the others" }),
    ...presets.map((p) => h("option", { value: p.name, text: p.description ? `${p.name}: ${p.description}` : p.name })));
  preset.value = picks.preset || "";
  $("preset-field").hidden = presets.length === 0;
  const choices = state.options.members.map((member) => {
    const box = h("input", { type: "checkbox", name: "member", value: member.name });
    box.checked = picks.members.includes(member.name);
    return h("label", { class: "choice" }, box, ` ${member.name} `, h("span", { class: "muted small", text: member.model }));
  });
  $("member-choices").replaceChildren(...choices);
  const chairman = $("chairman-choice");
  chairman.replaceChildren(h("option", { value: "", text: "None: the top-ranked answer is final" }),
    ...state.options.members.map((m) => h("option", { value: m.name, text: m.name })));
  chairman.value = picks.chairman || "";
  const rubric = $("rubric-choice");
  rubric.replaceChildren(...state.options.rubrics.map((r) => h("option", { value: r.id, text: `${r.name} (${r.id})` })));
  rubric.value = picks.rubric;
  rubric.disabled = !state.options.rubric_selectable;
  $("rubric-note").hidden = state.options.rubric_selectable;
}

/** The council a preset stands for (null: as configured), to fill in the pickers when it is chosen. */
function presetPicks(name) {
  const chosen = (state.options.presets || []).find((p) => p.name === name);
  if (!chosen) {
    return { members: state.options.members.map((m) => m.name), chairman: state.options.chairman,
      rubric: state.options.rubric, preset: null };
  }
  return { members: chosen.members, chairman: chosen.chairman, rubric: chosen.rubric, preset: chosen.name };
}

async function settingsChanged(event) {
  if (event && event.target && event.target.id === "preset-choice") {
    await savePicks(presetPicks(event.target.value), composerStatus);
    drawSettings();
    return;
  }
  const members = [...document.querySelectorAll("#member-choices input:checked")].map((box) => box.value);
  if (!members.length) {
    $("settings-status").textContent = "Choose at least one member.";
    drawSettings();
    return;
  }
  const picks = { members, chairman: $("chairman-choice").value || null, rubric: $("rubric-choice").value,
    preset: $("preset-choice").value || null };
  await savePicks(picks);
}

/** Keep the chosen council; `say` shows where it went (beside the control that changed it). */
async function savePicks(picks, say = (text) => { $("settings-status").textContent = text; }) {
  if (!state.current) {
    state.picks = picks;
    say("Used for the next new conversation.");
    return;
  }
  await guarded(async () => {
    state.current = { ...state.current, ...(await api("PATCH", `/api/conversations/${state.current.id}`, picks)) };
    say("Saved: the next question uses this council.");
  });
}

// -- the sidebar ----------------------------------------------------------------
async function refreshList() {
  const data = await api("GET", "/api/conversations");
  state.conversations = data.conversations;
  drawList();
}

function drawList() {
  const items = state.conversations.map((conversation) => {
    const open = h("button", { type: "button", class: "conversation-open", text: conversation.title,
      "aria-current": state.current?.id === conversation.id ? "page" : null });
    open.addEventListener("click", () => { closeSidebar(); guarded(() => openConversation(conversation.id)); });
    const rename = h("button", { type: "button", class: "icon rename", "aria-label": `Rename ${conversation.title}`,
      title: "Rename", text: "✎" });
    rename.addEventListener("click", () => startRename(item, conversation));
    const remove = h("button", { type: "button", class: "icon delete", "aria-label": `Delete ${conversation.title}`,
      title: "Delete", text: "✕" });
    remove.addEventListener("click", () => guarded(() => deleteConversation(conversation)));
    const item = h("li", { class: "conversation-item", "data-conversation-id": conversation.id }, open, rename, remove);
    return item;
  });
  $("conversation-list").replaceChildren(...items);
  $("conversation-empty").hidden = items.length > 0;
}

function startRename(item, conversation) {
  const input = h("input", { type: "text", class: "rename-input", "aria-label": "New title", maxlength: "120" });
  input.value = conversation.title;
  let settled = false;
  // From Enter or Escape focus goes back to the conversation's rename button; from a click elsewhere it stays there.
  const finish = async (save, refocus) => {
    if (settled) return;
    settled = true;
    const title = input.value.trim();
    if (save && title && title !== conversation.title) {
      await guarded(async () => {
        const updated = await api("PATCH", `/api/conversations/${conversation.id}`, { title });
        if (state.current?.id === conversation.id) {
          state.current.title = updated.title;
          $("conversation-title").textContent = updated.title;
        }
      });
    }
    await guarded(refreshList);
    if (refocus) {
      const id = CSS.escape(conversation.id);
      $("conversation-list").querySelector(`[data-conversation-id="${id}"] .rename`)?.focus();
    }
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); finish(true, true); }
    // Escape also closes the phone's drawer: here it only ends the renaming.
    if (event.key === "Escape") { event.preventDefault(); event.stopPropagation(); finish(false, true); }
  });
  input.addEventListener("blur", () => finish(true, false));
  item.replaceChildren(input);
  input.focus();
  input.select();
}

async function deleteConversation(conversation) {
  if (!window.confirm(`Delete the conversation “${conversation.title}”? This cannot be undone.`)) return;
  await api("DELETE", `/api/conversations/${conversation.id}`);
  if (state.current?.id === conversation.id) newConversation();
  await refreshList();
}

// The drawer is shown at once and slides in after; the page under it is inert until it closes.
const NARROW = window.matchMedia("(max-width: 800px)");

function pageUnderDrawer(inert) {
  for (const part of document.querySelectorAll(".main, .skip-link")) part.inert = inert;
}

function openSidebar() {
  $("sidebar").classList.add("open");
  $("sidebar-toggle").setAttribute("aria-expanded", "true");
  pageUnderDrawer(true);
  $("new-conversation").focus();
}

function closeSidebar(refocus = true) {
  if (!$("sidebar").classList.contains("open")) return;
  $("sidebar").classList.remove("open");
  $("sidebar-toggle").setAttribute("aria-expanded", "false");
  pageUnderDrawer(false);
  if (refocus) $("sidebar-toggle").focus();
}

// -- the transcript ---------------------------------------------------------------
function stopFollowing() {
  for (const stop of state.stops.splice(0)) stop();
  state.running = null;
  updateComposer();
}

function updateComposer() {
  // Marked, not disabled: a disabled button would drop the focus it holds, and Send during a run says why not.
  $("send").setAttribute("aria-disabled", String(state.running !== null));
  $("send").textContent = state.running ? "Answering…" : "Send";
  if (state.running === null) composerStatus("");
}

/**
 * The open conversation's cost beside its title: the known costs of its ended turns added up, marked partial when
 * any turn's cost is partial or unknown. Turns still running are left out until they end.
 */
function drawConversationCost() {
  const box = $("conversation-cost");
  const ended = state.views.filter((view) => view.root.isConnected && (view.finished || view.ended));
  box.hidden = ended.length === 0;
  if (!ended.length) {
    box.textContent = "";
    box.removeAttribute("title");
    return;
  }
  const costs = ended.map((view) => view.cost);
  const known = costs.filter((cost) => cost.known);
  const partial = costs.some((cost) => cost.partial);
  const turns = `${ended.length} finished turn${ended.length === 1 ? "" : "s"}`;
  box.classList.toggle("partial", partial);
  if (!known.length) {
    box.textContent = "Total cost unknown";
    box.title = `No cost is known for the ${turns}: their members have no prices configured, or no cost was recorded.`;
    return;
  }
  const total = known.reduce((sum, cost) => sum + cost.usd, 0);
  box.textContent = `Total cost ${dollars(total)}${partial ? " (partial)" : ""}`;
  box.title = partial ? `What is known of the ${turns}: some calls had no price, so the real total is higher.`
    : `The ${turns} added up.`;
}

function trackView(view) {
  view.onEnd = drawConversationCost;
  state.views.push(view);
  return view;
}

function newConversation() {
  stopFollowing();
  state.current = null;
  state.views = [];
  drawConversationCost();
  state.picks = state.picks || presetPicks(null);
  $("transcript").replaceChildren($("welcome") || h("div"));
  $("welcome").hidden = false;
  $("conversation-title").textContent = "New conversation";
  history.replaceState(null, "", location.pathname);
  drawSettings();
  drawList();
  $("question").focus();
}

function addTurn(message, images = []) {
  $("welcome").hidden = true;
  const question = h("div", { class: "question-bubble", "data-testid": "question" },
    h("h2", { class: "question-text" }, h("span", { class: "visually-hidden", text: "You asked: " }), message.content));
  if (images.length) {
    // Shown as the user sent them; the conversation keeps the text, so a reload shows the text alone.
    question.append(h("div", { class: "question-images", "data-testid": "question-images" },
      ...images.map((image) => h("img", { src: image.url, alt: image.name }))));
  }
  const view = trackView(new RunView(message.run_id, rubricOption(message.rubric || currentPicks().rubric)));
  const turn = h("article", { class: "turn", "data-run-id": message.run_id }, question, view.root);
  $("transcript").append(turn);
  return view;
}

async function recover(view) {
  // The stream ended without the run's end (a dropped connection, a server restart): ask for the record.
  const snapshot = await api("GET", `/api/runs/${view.runId}`).catch(() => null);
  if (!snapshot?.finished) {
    view.end();
    return view;
  }
  const fresh = trackView(new RunView(view.runId, view.rubric));
  for (const event of snapshot.events) fresh.apply(event);
  if (!fresh.finished) fresh.end();
  view.root.replaceWith(fresh.root);
  drawConversationCost();
  return fresh;
}

function watch(view, conversationId) {
  state.running = view.runId;
  updateComposer();
  const stop = followRun(view.runId, (event) => view.apply(event), async (reason) => {
    if (reason === "stopped") return;
    const ended = view.finished ? view : await recover(view);
    if (state.current?.id !== conversationId) return;
    // The answer came while the reader waited on this page: read it out.
    announce(ended.spoken());
    if (state.running === view.runId) state.running = null;
    updateComposer();
    guarded(refreshList);
  });
  state.stops.push(stop);
}

async function openConversation(id) {
  stopFollowing();
  const conversation = await api("GET", `/api/conversations/${encodeURIComponent(id)}`);
  state.current = conversation;
  history.replaceState(null, "", `#c=${conversation.id}`);
  $("conversation-title").textContent = conversation.title;
  $("transcript").replaceChildren($("welcome"));
  state.views = [];
  drawConversationCost();
  drawSettings();
  drawList();
  for (const message of conversation.messages.filter((m) => m.role === "user")) {
    const view = addTurn(message);
    const snapshot = await api("GET", `/api/runs/${message.run_id}`).catch((error) => {
      view.apply({ seq: 0, kind: "error", data: { message: error.message } });
      return null;
    });
    if (!snapshot) continue;
    for (const event of snapshot.events) view.apply(event);
    if (!snapshot.finished) watch(view, conversation.id);
    else if (!view.finished) view.end();
  }
  $("transcript").lastElementChild?.scrollIntoView({ block: "end" });
}

function readAsDataUrl(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

async function attachFiles(files) {
  for (const file of files) {
    if (!IMAGE_TYPES.includes(file.type)) {
      throw new Error(`${file.name} is not an image the council can take (${file.type || "unknown type"}; ` +
        "PNG, JPEG, GIF or WebP)");
    }
    if (state.images.length >= MAX_IMAGES) throw new Error(`at most ${MAX_IMAGES} images a question`);
    state.images.push({ name: file.name, url: await readAsDataUrl(file) });
    drawAttachments();
  }
}

function drawAttachments() {
  const list = $("attachments");
  list.replaceChildren(...state.images.map((image, index) => {
    const remove = h("button", { type: "button", "aria-label": `Remove ${image.name}`, text: "✕" });
    remove.addEventListener("click", () => { state.images.splice(index, 1); drawAttachments(); });
    return h("li", { "data-testid": "attachment" }, h("img", { src: image.url, alt: "" }), image.name, remove);
  }));
  list.hidden = state.images.length === 0;
}

async function send() {
  const text = $("question").value;
  const images = state.images.slice();
  if (!text.trim() && !images.length) return;
  if (state.running) {
    composerStatus("The council is still answering the last question: send this one when it is done.");
    return;
  }
  composerStatus("");
  // A page that could not load (an API key refused at first) loads now, asking for the key again.
  if (!state.options) await load();
  if (!state.current) {
    state.current = await api("POST", "/api/conversations", state.picks || {});
    history.replaceState(null, "", `#c=${state.current.id}`);
  }
  const conversationId = state.current.id;
  const body = images.length ? { content: text, images: images.map((image) => image.url) } : { content: text };
  const posted = await api("POST", `/api/conversations/${conversationId}/messages`, body);
  $("question").value = "";
  state.images = [];
  drawAttachments();
  const view = addTurn(posted.message, images);
  view.root.scrollIntoView({ block: "start" });
  watch(view, conversationId);
  // Focus waits in the question box for the next question (Send clicked or not); the answer is announced.
  $("question").focus();
  await refreshList();
  const listed = state.conversations.find((c) => c.id === conversationId);
  if (listed) {
    state.current.title = listed.title;
    $("conversation-title").textContent = listed.title;
  }
}

// -- start ----------------------------------------------------------------------
function bindControls() {
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(send);
  });
  $("question").addEventListener("keydown", (event) => {
    // Enter sends; Shift+Enter (and Enter while an input method composes) adds a line.
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("attach").addEventListener("change", (event) => {
    const files = Array.from(event.target.files || []);
    event.target.value = ""; // picking the same file again fires change again
    guarded(() => attachFiles(files));
  });
  $("new-conversation").addEventListener("click", () => { closeSidebar(); newConversation(); });
  $("settings").addEventListener("change", settingsChanged);
  $("preset-choice").addEventListener("change", settingsChanged);
  $("key-retry").addEventListener("click", enterKey);
  $("settings-toggle").addEventListener("click", () => {
    const hidden = !$("settings").hidden;
    $("settings").hidden = hidden;
    $("settings-toggle").setAttribute("aria-expanded", String(!hidden));
  });
  // On a narrow screen the list is a drawer: the toggle opens it; Close, Escape or a pick closes it.
  $("sidebar-toggle").addEventListener("click", openSidebar);
  $("sidebar-close").addEventListener("click", () => closeSidebar());
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !$("key-dialog").open) closeSidebar();
  });
  // A tap beside the open drawer closes it; a screen grown wide shows the list in place, so nothing stays inert.
  document.addEventListener("pointerdown", (event) => {
    if (!$("sidebar").contains(event.target) && !$("key-dialog").open) closeSidebar(false);
  });
  NARROW.addEventListener("change", () => { if (!NARROW.matches) closeSidebar(false); });
  $("forget-key").addEventListener("click", () => {
    forgetKey();
    $("forget-key").hidden = true;
  });
}

async function start() {
  setupTheme();
  onKeyNeeded(askForKey);
  bindControls();
  $("forget-key").hidden = !storedKey();
  await guarded(load);
  document.body.dataset.ready = "true";
}

/** What the page needs from the server to start: the options, the list, and the conversation in the address. */
async function load() {
  state.options = await api("GET", "/api/options");
  await refreshList();
  const wanted = new URLSearchParams(location.hash.slice(1)).get("c");
  newConversation();
  if (wanted) {
    await openConversation(wanted).catch((error) => {
      newConversation();
      throw error;
    });
  }
}

start();

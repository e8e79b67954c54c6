// ttt-db's page: play, explore, check and watch searches over the JSON API (docs/api.md).
// Plain JavaScript, no build step. The position lives in the URL: ?board=START&moves=4,0,8&ai=...&as=o
"use strict";

// Where the page runs: this document, its URL and the HTTP API. The notebook widget
// (cli/web/widget.py) runs this same script inside its own element, with a host of its own
// (`tttDbHost`: its settings for a URL, the same API answered over the kernel).
const host = (typeof tttDbHost !== "undefined" && tttDbHost) || {
  root: document,
  query: () => location.search,
  saveQuery: (query) => history.replaceState(null, "", query ? `?${query}` : location.pathname),
  request: async (path, query, method, payload) => {
    const sent = payload === undefined ? { method } : { method, body: payload, headers: { "Content-Type": "application/json" } };
    const response = await fetch(`/api/${path}${query ? "?" + query : ""}`, sent);
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    return body;
  },
  boot: () => JSON.parse(document.getElementById("boot").textContent || "{}"),
  link: () => location.href,
  switchGame: (settings) => { location.search = `?${settings}`; },
  started: (game) => {
    document.title = `ttt-db ${game}`;
    document.body.dataset.ready = "1";
    performance.mark("ttt-db-ready");  // navigation start to a playable board (the benchmark reads it)
  },
};
const $ = (id) => host.root.querySelector(`#${id}`);
const SVG = "http://www.w3.org/2000/svg";
const DEFAULT_AI = "perfect-shortest";  // never passes up a faster win: a slower one reads as toying with you
const PAGE = 10;  // failing positions per page of the check view

const state = {
  game: null,          // /api/game
  games: [],           // every game the server serves, and the one it serves by default
  defaultGame: null,
  start: "",           // the board the game started from (the empty board unless opened from a link)
  first: null,         // who moved first ("o" or "x"), as the API read the start board; null until it answers
  moves: [],           // cells played since `start`
  redo: [],            // moves taken back by undo, the next to replay last
  boards: [],          // the boards along the game, `start` first, each the API's board after a move
  ai: DEFAULT_AI,
  human: "o",
  hints: false,        // off until asked: every cell's value would give the game away
  view: "play",
  marks: null,         // {chosen: [...], best: [...], ai} when a failing position is opened from a check
  checkAi: "ai14s",
  checkOffset: 0,
};
const positions = new Map();   // "first board" -> promise of its /api/position document
const known = new Map();       // board -> its document, once arrived
let turn = 0;                  // bumps on every change, so a late AI answer for an old board is dropped
let focusCell = 0;

async function api(path, params, method = "GET", body = undefined) {
  const query = new URLSearchParams({ ...(params || {}), ...(state.game ? { game: state.game.game } : {}) }).toString();
  return host.request(path, query, method, body);
}

// The page holds no rule of the game: who moves, what a move makes of the board, how a game
// ended and from whose side a value is are all read from the API's position documents.

const currentBoard = () => state.boards.length ? state.boards[state.boards.length - 1] : state.start;

function position(board) {  // remembers the request itself, so a board is asked for once
  const params = state.first ? { board, first: state.first } : { board };
  const key = `${state.first || ""} ${board}`;
  if (!positions.has(key)) {
    const request = api("position", params);
    positions.set(key, request);
    request.then((doc) => positions.set(`${doc.first} ${doc.board}`, request), () => positions.delete(key));
  }
  return positions.get(key);
}

async function followGame() {
  // the documents along the game: the start board's, then each move's board as the API makes it;
  // a move that is not legal there (from a link) ends the game before it, and says so
  const docs = [await position(state.start)];
  state.first = docs[0].first;
  const boards = [docs[0].board];
  for (const [index, move] of state.moves.entries()) {
    const played = docs[docs.length - 1].moves.find((m) => m.move === move);
    if (!played) {
      const dropped = state.moves.splice(index);
      writeUrl();
      notice(`The link's move ${index + 1} (${Number.isInteger(move) && move >= 0 && move < state.game.cells
        ? cellName(move) : move}) is not a legal move there: the game stops before it` +
        (dropped.length > 1 ? ` (${dropped.length - 1} later moves dropped).` : "."), true);
      break;
    }
    docs.push(await position(played.board));
    boards.push(played.board);
  }
  state.boards = boards;
  return docs;
}

function notice(text, append = false) {
  const box = $("notice");
  box.textContent = append && box.textContent ? `${box.textContent}; ${text}` : text;
  box.hidden = !box.textContent;
}


function cellName(cell) { return state.game.cell_names[cell]; }

// --- the URL -------------------------------------------------------------------------

function readUrl() {
  const params = new URLSearchParams(host.query());
  state.start = params.get("board") || state.game.empty_board;
  const askedGame = params.get("game");
  state.first = ["o", "x"].includes(params.get("first")) ? params.get("first") : null;
  state.boards = [];
  state.moves = (params.get("moves") || "").split(",").filter((m) => m !== "").map(Number);
  state.ai = params.get("ai") || DEFAULT_AI;
  state.human = params.get("as") || "o";
  const problems = [];
  if (!["o", "x", "both"].includes(state.human)) {
    problems.push(`?as=${state.human} is not a side (o, x or both): you play o`);
    state.human = "o";
  }
  state.hints = params.get("hints") === "1";
  state.view = params.get("view") || "play";
  if (!["play", "check", "search", "stats"].includes(state.view)) {
    problems.push(`?view=${state.view} is not a view (play, check, search or stats): showing play`);
    state.view = "play";
  }
  if (params.has("first") && !state.first) problems.push(`?first=${params.get("first")} is not o or x: ignored`);
  if (askedGame && askedGame !== state.game.game) {
    problems.push(`?game=${askedGame} is not served here (${state.games.join(", ")}): showing ${state.game.game}`);
  }
  notice(problems.join("; "));
  state.checkAi = params.get("check") || state.checkAi;
  const chosen = params.get("chosen"), best = params.get("best");
  state.marks = chosen !== null && best !== null ? {
    chosen: chosen.split(",").filter(Boolean).map(Number),
    best: best.split(",").filter(Boolean).map(Number), ai: params.get("by") || state.checkAi,
  } : null;
}

function writeUrl() {
  const params = new URLSearchParams();
  if (state.game.game !== state.defaultGame) params.set("game", state.game.game);
  if (state.start !== state.game.empty_board) params.set("board", state.start);
  if (state.first === "x") params.set("first", "x");
  if (state.moves.length) params.set("moves", state.moves.join(","));
  if (state.ai !== DEFAULT_AI) params.set("ai", state.ai);
  if (state.human !== "o") params.set("as", state.human);
  if (state.hints) params.set("hints", "1");
  if (state.view !== "play") params.set("view", state.view);
  if (state.view === "check") params.set("check", state.checkAi);
  if (state.marks) {
    params.set("chosen", state.marks.chosen.join(","));
    params.set("best", state.marks.best.join(","));
    params.set("by", state.marks.ai);
  }
  host.saveQuery(params.toString());
}

// --- the board -----------------------------------------------------------------------

function buildCoordinates() {
  // the column letters and row numbers of the game's own cell names (a1 is the top-left cell)
  const { rows, columns, cell_names: names } = state.game;
  const letters = $("column-names"), numbers = $("row-names");
  letters.style.gridTemplateColumns = `repeat(${columns}, 1fr)`;
  letters.replaceChildren(...Array.from({ length: columns }, (_, c) => span(names[c].replace(/[0-9]+$/, ""))));
  numbers.style.gridTemplateRows = `repeat(${rows}, 1fr)`;
  numbers.replaceChildren(...Array.from({ length: rows }, (_, r) => span(names[r * columns].replace(/^[a-z]+/, ""))));
  const game = state.game;
  $("rules-text").textContent = `${game.game}: a board of ${game.rows} rows and ${game.columns} columns; ` +
    `${game.k} marks in a row (across, down or diagonally) win. The players, o and x, take turns; ` +
    "o moves first unless the position says otherwise (a board where x has one more mark than o was opened by x).";
}

function miniBoard(board, marks = {}) {
  // a small drawing of a board from the API (cells as given, no rule): `chosen` ringed red, `best` green
  const grid = document.createElement("span");
  grid.className = "mini-board";
  grid.style.gridTemplateColumns = `repeat(${state.game.columns}, 1fr)`;
  grid.setAttribute("aria-hidden", "true");
  [...board].forEach((mark, cell) => {
    const square = span(mark === "." ? "" : mark);
    square.className = `mini-cell ${mark === "." ? "" : mark}` +
      ((marks.chosen || []).includes(cell) ? " chosen" : "") + ((marks.best || []).includes(cell) ? " best" : "");
    grid.appendChild(square);
  });
  return grid;
}

function span(text) {
  const element = document.createElement("span");
  element.textContent = text;
  return element;
}

function buildBoard() {
  buildCoordinates();
  const board = $("board");
  board.style.gridTemplateColumns = `repeat(${state.game.columns}, 1fr)`;
  $("board-frame").style.setProperty("--columns", state.game.columns);
  board.replaceChildren();
  for (let row = 0; row < state.game.rows; row++) {
    const line = document.createElement("div");
    line.setAttribute("role", "row");
    line.className = "board-row";
    for (let column = 0; column < state.game.columns; column++) {
      const cell = row * state.game.columns + column;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "cell";
      button.dataset.cell = String(cell);
      button.setAttribute("role", "gridcell");
      button.tabIndex = cell === 0 ? 0 : -1;
      for (const part of ["mark", "hint"]) {
        const span = document.createElement("span");
        span.className = part;
        button.appendChild(span);
      }
      button.addEventListener("click", () => humanMove(cell));
      button.addEventListener("keydown", (event) => arrowKeys(event, cell));
      line.appendChild(button);
    }
    board.appendChild(line);
  }
}

function arrowKeys(event, cell) {
  const { rows, columns } = state.game;
  const row = Math.floor(cell / columns), column = cell % columns;
  const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  const step = moves[event.key];
  if (!step) return;
  event.preventDefault();
  const next = ((row + step[0] + rows) % rows) * columns + (column + step[1] + columns) % columns;
  moveFocus(next);
}

function moveFocus(cell) {
  const buttons = $("board").querySelectorAll(".cell");
  buttons.forEach((button) => { button.tabIndex = -1; });
  buttons[cell].tabIndex = 0;
  buttons[cell].focus();
  focusCell = cell;
}

function humanTurn(doc) {
  return doc.status === "playing" && (state.human === "both" || doc.to_move === state.human);
}

function statusText(doc) {
  const ai = state.ai;
  if (doc.status !== "playing" && state.moves.length === 0) {  // opened finished: nobody here played it
    return `This position is over: ${doc.outcome}.`;  // the library's words (Position.outcome)
  }
  if (doc.status === "draw") return "Game over: a draw.";
  if (doc.status !== "playing") {
    if (state.human === "both") return `Game over: ${doc.status} wins.`;
    return doc.status === state.human ? `Game over: ${doc.status} wins. You beat ${ai}!`
      : `Game over: ${doc.status} wins. ${ai} beat you.`;
  }
  const who = state.human === "both" ? doc.to_move : (doc.to_move === state.human ? `You (${doc.to_move})` : `${ai} (${doc.to_move})`);
  if (!state.hints) return `${who} to move.`;  // hints off: no value anywhere
  return `${who} to move: ${doc.outcome}.`;  // the library's words (Position.outcome)
}

async function render() {
  const mine = turn;
  let docs;
  try {
    docs = await followGame();
  } catch (error) {
    $("status").textContent = `Cannot show this board: ${error.message}`;
    return;
  }
  if (mine !== turn) return;  // a newer render is on its way
  const doc = docs[docs.length - 1];
  const board = doc.board;
  docs.forEach((d) => known.set(d.board, d));
  for (const option of $("human").options) {
    if (option.value !== "both") option.textContent = option.value + (option.value === doc.first ? " (moves first)" : "");
  }
  const byMove = new Map(doc.moves.map((m) => [m.move, m]));
  const best = new Set(doc.hinted_moves);  // the library's: the fastest win, the slowest loss, every drawing move
  const marks = state.moves.length === 0 ? state.marks : null;
  $("board").querySelectorAll(".cell").forEach((button) => {
    const cell = Number(button.dataset.cell);
    const mark = board[cell];
    const analysis = byMove.get(cell);
    button.querySelector(".mark").textContent = mark === "." ? "" : mark;
    button.className = "cell" + (mark === "." ? " empty" : ` taken ${mark}`);
    let hint = "";
    if (analysis && state.hints) {
      button.classList.add(analysis.value);
      if (best.has(cell)) button.classList.add("best");
      hint = analysis.outcome;  // the library's words (MoveAnalysis.outcome)
    }
    if (marks && marks.chosen.includes(cell)) button.classList.add("chosen");
    if (marks && marks.best.includes(cell)) button.classList.add("marked-best");
    button.querySelector(".hint").textContent = hint;
    const label = [cellName(cell), mark === "." ? "empty" : mark];
    if (hint) label.push(hint);
    if (marks && marks.chosen.includes(cell)) label.push(`${marks.ai} plays here`);
    if (marks && marks.best.includes(cell)) label.push("a best move");
    button.setAttribute("aria-label", label.join(", "));
    button.setAttribute("aria-disabled", String(!(analysis && humanTurn(doc))));
  });
  $("status").textContent = statusText(doc);
  $("board").dataset.status = doc.status;
  const note = $("marks-note");
  note.hidden = !marks;
  if (marks) {
    note.textContent = `${marks.ai} may play ${marks.chosen.map(cellName).join(", ")} (red ring); ` +
      `the best moves are ${marks.best.map(cellName).join(", ")} (green ring).`;
  }
  $("undo").disabled = state.moves.length === 0;
  $("redo").disabled = state.redo.length === 0;
  $("restart").disabled = state.moves.length === 0;
  $("swap").disabled = state.human === "both";
  const winning = new Set(doc.winning_line);
  $("board").querySelectorAll(".cell").forEach((button) => {
    const onLine = winning.has(Number(button.dataset.cell));
    button.classList.toggle("winning", onLine);
    if (onLine) button.setAttribute("aria-label", `${button.getAttribute("aria-label")}, on the winning line`);
  });
  $("moves-line").textContent = state.moves.length
    ? `Moves: ${state.moves.map((m, i) => `${i + 1}. ${cellName(m)}`).join("  ")}` : "";
  let review = { mistake: null };
  if (state.hints && state.moves.length) {  // the library finds the first mistake (GET /api/mistake)
    try {
      review = await api("mistake", { board: state.start, moves: state.moves.join(","), first: state.first });
    } catch (error) {
      notice(`Cannot find the first mistake: ${error.message}`);
    }
    if (mine !== turn) return;
  }
  drawHistory(docs, review.mistake);
  if (doc.status === "playing" && !humanTurn(doc)) aiMove(board);
}

async function aiMove(board) {
  const mine = ++turn;
  let answer;
  try {
    answer = await api("ai-move", { ai: state.ai, board, first: state.first });
  } catch (error) {
    $("status").textContent = `${state.ai} cannot move here: ${error.message}`;
    return;
  }
  await new Promise((resolve) => setTimeout(resolve, 250));
  if (mine !== turn || currentBoard() !== board) return;
  play(answer.move);
}

function changed() {
  // the game changed: a late AI answer for the old board is dropped, the URL and the page follow
  turn++;
  writeUrl();
  render();
}

function play(cell, keepRedo = false) {
  state.moves.push(cell);
  if (!keepRedo) state.redo = [];
  state.marks = null;
  changed();
}

function humanMove(cell) {
  const board = currentBoard();
  const doc = known.get(board);
  if (!doc || !humanTurn(doc) || !doc.moves.some((m) => m.move === cell)) return;
  focusCell = cell;
  play(cell);
}

function undo() {
  if (!state.moves.length) return;
  // take back the human's last move and the AI's reply, so it is the human's turn again
  let count = 1;
  if (state.human !== "both") {
    const toMove = (ply) => known.get(state.boards[ply])?.to_move;
    for (count = 1; count <= state.moves.length; count++) {
      if (toMove(state.moves.length - count) === state.human) break;
    }
    if (count > state.moves.length) count = state.moves.length;
  }
  state.redo.push(...state.moves.splice(state.moves.length - count, count).reverse());
  changed();
}

function redo() {
  // replay what undo took back: the human's move and the AI's reply, as they were
  if (!state.redo.length) return;
  const count = state.human === "both" ? 1 : Math.min(2, state.redo.length);
  for (let i = 0; i < count; i++) state.moves.push(state.redo.pop());
  state.marks = null;
  changed();
}

function restart() {
  state.moves = [];
  state.redo = [];
  state.marks = null;
  changed();
}

async function playItOut() {
  // perfect play to the end from the board shown (GET /api/line): every move of the line played
  const moves = state.moves.length;
  const docs = await followGame();  // the board the moves so far make, as the API makes it
  const board = docs[docs.length - 1].board;
  let line;
  try {
    line = await api("line", { board, first: state.first, shortest: "1" });
  } catch (error) {
    notice(`Cannot play it out: ${error.message}`);
    return;
  }
  if (state.moves.length !== moves || !line.moves.length) return;  // the game moved on meanwhile, or is over
  state.moves.push(...line.moves);
  state.redo = [];
  state.marks = null;
  changed();
}

function swapSides() {
  if (state.human === "both") return;
  state.human = state.human === "o" ? "x" : "o";
  $("human").value = state.human;
  changed();
}

async function copyLink() {
  const status = $("copy-status");
  try {
    await navigator.clipboard.writeText(host.link());
    status.textContent = "Link copied.";
  } catch (error) {
    status.textContent = `Copy this link: ${host.link()}`;
  }
}

function newGame() {
  state.start = state.game.empty_board;
  state.first = null;
  state.boards = [];
  state.moves = [];
  state.redo = [];
  state.marks = null;
  changed();
}

// --- value history -------------------------------------------------------------------

function svgAdder(svg) {
  // add(name, attributes, text): a new SVG element appended to `svg`
  return (name, attributes, text) => {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    if (text !== undefined) element.textContent = text;
    svg.appendChild(element);
    return element;
  };
}

function drawHistory(docs, mistake) {
  // The value history in GamesmanUni's mirrored style: a row per position, the start on top; the
  // first player's wins on the left (a win now at the edge, later ones inward), draws in the
  // middle, the second player's wins on the right. A position's dot is coloured by its value for
  // the player to move, as the board's hints are; every move that player had is a small dot where
  // it leads, coloured by its value for them (a number tells how many moves share a place); the
  // moves played link the rows, each labelled on the side of the player who made it.
  const figure = $("history");
  figure.hidden = !state.hints;
  if (!state.hints) return;
  const first = docs[0].first, second = first === "o" ? "x" : "o";
  const svg = $("history-chart");
  const longest = Math.max(1, ...docs.flatMap((doc) => [doc.remoteness, ...doc.moves.map((m) => m.remoteness)]));
  const width = 360, label = 46, top = 34, rowHeight = 28, lane = 7;  // moves' dots a lane below their position
  const height = top + rowHeight * docs.length + 8;
  const middle = width / 2, step = (middle - label - 14) / (longest + 1);
  const x = (score, remoteness) => (score > 0 ? label + 8 + remoteness * step
    : score < 0 ? width - label - 8 - remoteness * step : middle);
  const y = (ply) => top + rowHeight * ply + rowHeight / 2;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  const add = svgAdder(svg);
  add("text", { x: label + 8, y: 12, class: `axis side ${first}` }, `\u2190 ${first} wins`);
  add("text", { x: middle, y: 12, "text-anchor": "middle", class: "axis" }, "draw");
  add("text", { x: width - label - 8, y: 12, "text-anchor": "end", class: `axis side ${second}` }, `${second} wins \u2192`);
  for (let r = 0; r <= longest; r += longest > 12 ? 2 : 1) {
    for (const score of [1, -1]) {
      add("line", { x1: x(score, r), x2: x(score, r), y1: top - 6, y2: height - 4, class: "grid" });
      add("text", { x: x(score, r), y: top - 10, "text-anchor": "middle", class: "axis" }, String(r));
    }
  }
  add("line", { x1: middle, x2: middle, y1: top - 6, y2: height - 4, class: "grid draw-line" });
  const mistakeRow = mistake ? mistake.ply + 1 : -1;  // the row of the mistake, labelled with its move
  if (mistakeRow > 0) {
    add("rect", { x: 2, y: y(mistakeRow) - rowHeight / 2 + 1, width: width - 4, height: rowHeight - 2, rx: 8,
      class: "mistake" });
  }
  docs.forEach((doc, ply) => {
    const where = new Map();  // "score remoteness" -> the moves that lead there
    for (const move of doc.moves) {
      const key = `${Math.sign(move.score)} ${move.remoteness}`;
      where.set(key, [...(where.get(key) || []), move]);
    }
    for (const moves of where.values()) {
      const [sample] = moves;
      const dot = add("circle", { cx: x(sample.score, sample.remoteness), cy: y(ply) + lane, r: moves.length > 1 ? 5 : 3,
        class: `next ${sample.value}`, "data-count": String(moves.length) });
      const title = document.createElementNS(SVG, "title");
      title.textContent = moves.map((m) => `${doc.to_move} ${cellName(m.move)} ${m.outcome}`).join("; ");
      dot.appendChild(title);
      if (moves.length > 1) {
        add("text", { x: x(sample.score, sample.remoteness), y: y(ply) + lane + 2.5, "text-anchor": "middle", class: "count" },
          String(moves.length));
      }
    }
    if (ply > 0) {
      const before = docs[ply - 1], move = state.moves[ply - 1];
      const played = before.moves.find((m) => m.move === move);
      add("line", { x1: x(before.score, before.remoteness), y1: y(ply - 1) - 3, x2: x(doc.score, doc.remoteness), y2: y(ply) - 3,
        class: `link ${played ? played.value : "draw"}` });
      const byFirst = before.to_move === first;
      add("text", { x: byFirst ? 4 : width - 4, y: y(ply), "text-anchor": byFirst ? "start" : "end",
        class: `axis move ${before.to_move}` }, `${ply}. ${cellName(move)}`);
    } else {
      add("text", { x: 4, y: y(0), class: "axis" }, "start");
    }
    const dot = add("circle", { cx: x(doc.score, doc.remoteness), cy: y(ply) - 3, r: 5.5, class: `position ${doc.value}` });
    const title = document.createElementNS(SVG, "title");
    title.textContent = (ply === 0 ? "start" : `after move ${ply} (${cellName(state.moves[ply - 1])})`) +
      `: ${doc.outcome}`;  // the library's words (Position.outcome)
    dot.appendChild(title);
  });
  const caption = $("history-caption");
  if (mistake) {
    caption.textContent = `First mistake, ${mistake.text}.`;  // the library's words (Mistake.text)
    svg.setAttribute("aria-label", `Value after each move; the outcome changed at move ${mistakeRow}`);
  } else {
    caption.textContent = "Each position's value with best play, and where every move led: no mistake so far.";
    svg.setAttribute("aria-label", "Value after each move; the outcome has not changed");
  }
}

// --- views ---------------------------------------------------------------------------

function showView(view) {
  state.view = view;
  for (const name of ["play", "check", "search", "stats"]) {
    $(`view-${name}`).hidden = name !== view;
    $(`tab-${name}`).setAttribute("aria-selected", String(name === view));
  }
  writeUrl();
  if (view === "stats") showStats();
}

// --- statistics view -----------------------------------------------------------------

let statsShown = null;  // the request that fills the view: asked once per page

function showStats() {
  statsShown ??= fillStats().catch((error) => {
    statsShown = null;
    $("stats-status").textContent = `The statistics could not be read: ${error.message}`;
  });
}

function extremeEntry(extreme, what) {
  // the longest win or slowest loss: its plies, and its board, which opens on the Play view
  const dd = document.createElement("dd");
  if (extreme === null) {
    dd.textContent = `no ${what}`;
    return dd;
  }
  const button = document.createElement("button");
  button.type = "button";
  button.className = "failure";
  button.dataset.board = extreme.board;
  button.textContent = `${extreme.remoteness} plies, from ${extreme.board} (depth ${extreme.depth}): open it on the board`;
  button.prepend(miniBoard(extreme.board));
  button.addEventListener("click", () => openBoard(extreme.board));
  dd.append(button);
  return dd;
}

async function fillStats() {
  $("stats-status").textContent = `Reading the statistics of ${state.game.game}…`;
  const stats = await api("stats", {});
  $("stats-chart").innerHTML = stats.chart;  // the library's SVG (ttt_db.store.stats.depth_chart)
  $("stats-chart-figure").hidden = false;
  const text = (value) => { const dd = document.createElement("dd"); dd.textContent = value; return dd; };
  const rows = [
    ["Positions in play", text(stats.in_play.toLocaleString())],
    ["Decision positions (some move loses value)",
      text(`${stats.decision.toLocaleString()} (${(100 * stats.decision / stats.in_play).toFixed(1)}% of those in play)`)],
    ["The longest forced win", extremeEntry(stats.longest_win, "forced win")],
    ["The slowest loss", extremeEntry(stats.slowest_loss, "loss")],
  ];
  $("stats-summary").replaceChildren(...rows.flatMap(([term, dd]) => {
    const dt = document.createElement("dt"); dt.textContent = term;
    return [dt, dd];
  }));
  const body = $("stats-remoteness").querySelector("tbody");
  body.replaceChildren(...stats.by_remoteness.map((row) => {
    const tr = document.createElement("tr");
    for (const cell of [row.value, row.remoteness, row.positions.toLocaleString(), row.classes.toLocaleString()]) {
      const td = document.createElement("td"); td.textContent = String(cell); tr.append(td);
    }
    return tr;
  }));
  $("stats-remoteness").hidden = false;
  $("stats-remoteness-heading").hidden = false;
  $("stats-status").textContent = `${state.game.game}: every position's value, read from the database.`;
}

// --- check view ----------------------------------------------------------------------

const VERDICT = { true: "solved", false: "NOT solved", null: "not decided" };
let checkFollowed = 0;  // which request follows the running check; a newer one (or a cancel) ends the older

function duration(seconds) {
  if (seconds < 120) return `${Math.ceil(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

function checkProgressText(result) {  // the server's background check: its phase, count, total and time left
  const where = `Checking ${result.ai} on ${result.game}`;
  if (result.phase === "starting") return `${where}: starting…`;
  if (result.phase === "weak") return `${where}: weak check, ${result.done.toLocaleString()} boards examined…`;
  const share = result.total ? ` of ${result.total.toLocaleString()} (${Math.floor(100 * result.done / result.total)}%)` : "";
  const left = result.eta_seconds === null ? "" : `, about ${duration(result.eta_seconds)} left`;
  return `${where}: strong check, ${result.done.toLocaleString()}${share} decision positions asked${left}…`;
}

async function cancelCheck() {
  checkFollowed++;
  $("check-cancel").hidden = true;
  try {
    await api("check/cancel", { ai: state.checkAi }, "POST");
    $("check-status").textContent = `The check of ${state.checkAi} was cancelled.`;
  } catch (error) {
    $("check-status").textContent = `Cannot cancel: ${error.message}`;
  }
}

async function runCheck(offset) {
  state.checkAi = $("check-ai").value;
  state.checkOffset = offset;
  writeUrl();
  const followed = ++checkFollowed;
  $("check-status").textContent = `Checking ${state.checkAi}…`;
  let result;
  try {
    result = await api("check", { ai: state.checkAi, offset, limit: PAGE });
    while (result.status === "running") {  // a large game's check runs on the server: follow it
      if (followed !== checkFollowed) return;  // cancelled while this answer was on its way
      $("check-status").textContent = checkProgressText(result);
      $("check-cancel").hidden = false;
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (followed !== checkFollowed) return;  // cancelled, or another check asked for meanwhile
      result = await api("check", { ai: state.checkAi, offset, limit: PAGE });
    }
  } catch (error) {
    if (followed === checkFollowed) $("check-status").textContent = `Cannot check ${state.checkAi}: ${error.message}`;
    return;
  } finally {
    if (followed === checkFollowed) $("check-cancel").hidden = true;
  }
  if (followed !== checkFollowed) return;
  const weak = result.weak, strong = result.strong;
  $("check-status").textContent = `${result.ai}: ${VERDICT[result.solved]}.`;
  const summary = $("check-summary");
  summary.replaceChildren();
  for (const side of ["o", "x"]) {
    const item = document.createElement("li");
    const one = weak[side];
    let text = `Weakly, as ${side}: ${VERDICT[one.solved]} (${one.visited.toLocaleString()} boards examined)`;
    if (one.counterexample) text += `; it can lose: ${one.counterexample.moves.map(cellName).join(" ")}`;
    if (one.mistake) {
      const m = one.mistake;
      text += `. Its decisive mistake, ${m.text}`;
    }
    item.textContent = text;
    if (one.counterexample) item.prepend(miniBoard(one.counterexample.board));  // how the lost game ended
    if (one.mistake) item.prepend(miniBoard(one.mistake.board, { chosen: [one.mistake.move], best: one.mistake.held }));
    summary.appendChild(item);
  }
  const item = document.createElement("li");
  item.textContent = `Strongly: ${VERDICT[strong.solved]}, a best move at ` +
    `${strong.correct.toLocaleString()} of ${strong.total.toLocaleString()} decision positions`;
  summary.appendChild(item);
  if (strong.failing) {
    const kinds = document.createElement("li");
    kinds.textContent = `${strong.failing.toLocaleString()} failing positions: ` +
      Object.entries(strong.by_kind).map(([kind, count]) => `${count.toLocaleString()} ${strong.kind_descriptions[kind]}`).join(", ") +
      (strong.failures_total < strong.failing ? ` (the shallowest ${strong.failures_total.toLocaleString()} listed)` : "");
    summary.appendChild(kinds);
  }
  const list = $("failures");
  list.replaceChildren();
  list.start = strong.failures_from + 1;
  $("failures-heading").hidden = strong.failures_total === 0;
  $("failures-pager").hidden = strong.failures_total === 0;
  for (const failure of strong.failures) {
    const entry = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "failure";
    button.dataset.board = failure.board;
    const wrong = failure.wrong.length ? failure.wrong : failure.chosen;
    button.textContent = `${failure.board}: ${failure.text}`;  // the library's words (StrongFailure.text)
    button.prepend(miniBoard(failure.board, { chosen: wrong, best: failure.best }));
    button.addEventListener("click", () => openFailure(failure));
    entry.appendChild(button);
    list.appendChild(entry);
  }
  const last = strong.failures_from + strong.failures.length;
  $("failures-range").textContent = `${strong.failures_from + 1}-${last} of ${strong.failures_total.toLocaleString()}`;
  $("failures-prev").disabled = strong.failures_from === 0;
  $("failures-next").disabled = last >= strong.failures_total;
  if (offset === 0) showScore(result.ai, followed);
}

async function showScore(ai, followed) {
  // How good the AI is (GET /api/score: the library's measures), where the server measures it.
  $("check-score").hidden = true;
  let score;
  try {
    score = await api("score", { ai });
  } catch (error) {
    return;  // a game measured from the command line only: the check stands alone
  }
  if (followed !== checkFollowed) return;
  renderScore(score);
}

async function scoreFile(file) {
  // A tabular policy from the user's file (POST /api/score: the file's text, read by the library),
  // scored as a built-in AI is; the check's own figures are not this file's, so they go, and a
  // check running on the server is cancelled (the page no longer follows it).
  if (!$("check-cancel").hidden) await cancelCheck();
  const followed = ++checkFollowed;
  for (const id of ["check-score", "failures-heading", "failures-pager"]) $(id).hidden = true;
  for (const id of ["check-summary", "failures"]) $(id).replaceChildren();
  $("check-status").textContent = `Scoring ${file.name}…`;
  let score;
  try {
    score = await api("score", { name: file.name }, "POST", await file.text());
  } catch (error) {
    if (followed === checkFollowed) $("check-status").textContent = `Cannot score ${file.name}: ${error.message}`;
    return;
  }
  if (followed !== checkFollowed) return;
  $("check-status").textContent = `${file.name}, a tabular policy (uniformly random where it lists no board): ` +
    "how good it is, exactly.";
  renderScore(score);
}

// A number as Python's format(x, ".Nf") writes it, as the CLI and the notebook show the same
// figures: an exact tie goes to the even neighbour (toFixed takes the larger: 78.125 to 78.13).
function fixed(x, digits) {
  const scaled = x * 10 ** digits;
  const low = Math.floor(scaled);
  const rest = scaled - low;
  const n = rest > 0.5 || (rest === 0.5 && low % 2 !== 0) ? low + 1 : low;
  return (n / 10 ** digits).toFixed(digits);
}

function renderScore(score) {
  const block = $("check-score");
  const percent = (x) => `${fixed(100 * x, 2)}%`;
  const table = $("score-table");
  table.replaceChildren();
  const head = table.insertRow();
  for (const label of ["seat", "against", "win", "draw", "loss", "score"]) {
    const cell = document.createElement("th");
    cell.textContent = label;
    head.appendChild(cell);
  }
  for (const seat of Object.values(score.seats)) {
    for (const [name, outcome] of Object.entries(seat.against)) {
      const row = table.insertRow();
      for (const text of [`as ${seat.seat}`, outcome.label, percent(outcome.win), percent(outcome.draw),
        percent(outcome.loss), fixed(outcome.score, 4)]) {
        row.insertCell().textContent = text;
      }
    }
  }
  $("score-exploitability").textContent = `Exploitability ${Number(score.exploitability.toPrecision(6))} ` +
    `(NashConv ${Number(score.nash_conv.toPrecision(6))}, OpenSpiel's units: what best responses gain over its ` +
    "self-play; 0 for a perfect player).";
  const costly = $("score-costliest");
  costly.replaceChildren();
  for (const seat of Object.values(score.seats)) {
    for (const cost of seat.costliest) {
      const item = document.createElement("li");
      const moves = cost.moves.map((m) => `${cellName(m.move)} ${percent(m.probability)} ${m.outcome}`);
      item.textContent = `As ${seat.seat}, reached ${percent(cost.reach)} of games, it gives up ${fixed(cost.lost, 3)} ` +
        `here (${fixed(cost.share, 4)} of its score): ${moves.join(", ")}`;
      const worse = cost.moves.filter((m) => m.score < cost.value).map((m) => m.move);
      item.prepend(miniBoard(cost.board, { chosen: worse }));
      costly.appendChild(item);
    }
  }
  block.hidden = false;
}

function openBoard(board, marks = null) {
  // a stored board (o moved first) opened on the Play view, both sides yours
  state.start = board;
  state.first = "o";
  state.boards = [];
  state.moves = [];
  state.human = "both";
  $("human").value = "both";
  state.marks = marks;
  turn++;
  showView("play");
  render();
}

function openFailure(failure) {
  openBoard(failure.board, { chosen: failure.wrong.length ? failure.wrong : failure.chosen, best: failure.best, ai: state.checkAi });
}

// --- search view ---------------------------------------------------------------------

const player = {
  trace: null, step: 0, timer: null, elements: new Map(), edges: new Map(), layout: null, level: 40, radius: 4,
  view: null, full: null, collapsed: new Set(), selected: null, counts: { entered: 0, cutoffs: 0, hits: 0 },
};
const SPACING = 10;  // between neighbouring leaves, in the tree's own units

async function runSearch() {
  stopTrace();
  const algorithm = $("search-algorithm").value;
  const board = currentBoard();
  $("search-status").textContent = `Searching ${board} with ${algorithm}…`;
  let result;
  try {
    result = await api("search", { algorithm, board, first: state.first || "", trace: 1 });
  } catch (error) {
    $("search-status").textContent = `Cannot search: ${error.message}`;
    $("player").hidden = true;
    $("search-stats").replaceChildren();  // the last search's figures are not this one's
    $("searched-board").replaceChildren();
    return;
  }
  $("search-status").textContent = `${result.algorithm} from ${result.board}: score ${result.score} ` +
    `(${result.scale} scale, ${result.score_viewpoint}'s side); the database says ${result.database.score}: ` +
    `${result.agrees ? "agrees" : "DISAGREES"}.`;
  const stats = $("search-stats");
  stats.replaceChildren();
  const rows = [[result.best_moves_from === "database" ? "best moves (the database's)" : "best moves",
    result.best_moves.map(cellName).join(", ") || "none"],
    ["nodes", result.nodes], ["finished boards", result.terminal], ["cutoffs", result.cutoffs],
    ["table probes", result.table_probes], ["table hits", result.table_hits_exact + result.table_hits_bound],
    ["deepest ply", result.deepest_ply], ["seconds", result.seconds.toFixed(3)]];
  for (const [name, value] of rows) {
    const term = document.createElement("dt"), detail = document.createElement("dd");
    term.textContent = name;
    detail.textContent = typeof value === "number" ? value.toLocaleString() : value;
    stats.append(term, detail);
  }
  player.trace = result.trace;
  $("searched-board").replaceChildren(miniBoard(result.trace.nodes[0].board),
    span(` searched: ${result.trace.nodes[0].board}` + (result.first === "x" ? " (marks swapped: o first)" : "")));
  layoutTree(result.trace);
  $("player").hidden = false;
  $("tree-controls").hidden = false;
  resetTrace();
}

function layoutTree(trace) {
  const children = new Map();
  const byId = new Map(trace.nodes.map((node) => [node.id, node]));
  for (const node of trace.nodes) {
    if (node.parent !== null) {
      if (!children.has(node.parent)) children.set(node.parent, []);
      children.get(node.parent).push(node.id);
    }
  }
  const x = new Map();
  let leaves = 0, deepest = 0;
  const place = (id) => {  // leaves left to right in visit order; a parent over its children
    const node = byId.get(id);
    deepest = Math.max(deepest, node.ply);
    const kids = children.get(id) || [];
    if (!kids.length) { x.set(id, leaves++); return; }
    kids.forEach(place);
    x.set(id, (x.get(kids[0]) + x.get(kids[kids.length - 1])) / 2);
  };
  place(trace.nodes[0].id);
  player.layout = { x, byId, children, leaves: Math.max(leaves, 1), deepest };
}

// --- zoom, pan, collapse: the tree's view is its SVG viewBox ------------------------------

function setView(view) {
  player.view = view;
  const svg = $("tree");
  svg.setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
  // nodes keep their size on screen as the tree is zoomed: the spacing grows, not the circles
  svg.style.setProperty("--node-r", `${Math.max(player.radius * view.w / player.full.w, 0.5)}px`);
}

function zoom(factor, cx, cy) {
  const v = player.view;
  const w = Math.min(v.w * factor, player.full.w), h = Math.min(v.h * factor, player.full.h);
  const x = cx === undefined ? v.x + (v.w - w) / 2 : cx - (cx - v.x) * w / v.w;
  const y = cy === undefined ? v.y + (v.h - h) / 2 : cy - (cy - v.y) * h / v.h;
  setView({ x, y, w, h });
}

function treePoint(event) {
  const box = $("tree").getBoundingClientRect(), v = player.view;
  return [v.x + (event.clientX - box.left) / box.width * v.w, v.y + (event.clientY - box.top) / box.height * v.h];
}

function follow(cx, cy) {
  // keep the node being replayed in view when zoomed in
  const v = player.view;
  if (!$("trace-follow").checked || v.w >= player.full.w) return;
  if (cx < v.x || cx > v.x + v.w || cy < v.y || cy > v.y + v.h) {
    setView({ ...v, x: cx - v.w / 2, y: Math.max(player.full.y, cy - v.h / 2) });
  }
}

function toggleSubtree(node) {
  // hide or show every element below `node` that has been drawn
  const collapsed = !player.collapsed.has(node.id);
  if (collapsed) player.collapsed.add(node.id); else player.collapsed.delete(node.id);
  const stack = [...(player.layout.children.get(node.id) || [])];
  while (stack.length) {
    const id = stack.pop();
    for (const element of [player.elements.get(id), player.edges.get(id)]) {
      if (element) element.classList.toggle("collapsed", collapsed);
    }
    stack.push(...(player.layout.children.get(id) || []));
  }
  player.elements.get(node.id)?.classList.toggle("folded", collapsed);
  detail(node);
}

function wireTree() {
  const svg = $("tree");
  svg.addEventListener("wheel", (event) => {
    if (!player.view) return;
    event.preventDefault();
    const [cx, cy] = treePoint(event);
    zoom(event.deltaY > 0 ? 1.25 : 0.8, cx, cy);
  }, { passive: false });
  let drag = null;
  svg.addEventListener("pointerdown", (event) => {
    if (player.view && event.target === svg) drag = { at: treePoint(event), view: player.view };
  });
  svg.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const box = svg.getBoundingClientRect();
    const dx = (event.clientX - box.left) / box.width * drag.view.w + drag.view.x - drag.at[0];
    const dy = (event.clientY - box.top) / box.height * drag.view.h + drag.view.y - drag.at[1];
    setView({ ...drag.view, x: drag.view.x - dx, y: drag.view.y - dy });
  });
  for (const name of ["pointerup", "pointerleave"]) svg.addEventListener(name, () => { drag = null; });
  $("tree-zoom-in").addEventListener("click", () => zoom(0.5));
  $("tree-zoom-out").addEventListener("click", () => zoom(2));
  $("tree-fit").addEventListener("click", () => setView({ ...player.full }));
  $("tree-collapse").addEventListener("click", () => { if (player.selected) toggleSubtree(player.selected); });
}

function resetTrace() {
  stopTrace();
  player.step = 0;
  player.elements.clear();
  player.edges = new Map();
  player.collapsed = new Set();
  player.counts = { entered: 0, cutoffs: 0, hits: 0 };
  const svg = $("tree");
  const { leaves, deepest } = player.layout;
  const width = leaves * SPACING + 20;
  const scale = (svg.clientWidth || 600) / width;  // screen pixels per unit
  player.level = Math.max(40, ((svg.clientHeight || 340) / scale - 30) / Math.max(deepest, 1));
  player.radius = Math.min(player.level / 3, Math.max(4, 4 / scale));
  player.full = { x: -10, y: -player.radius - 4, w: width, h: deepest * player.level + 2 * player.radius + 8 };
  setView({ ...player.full });
  svg.replaceChildren();
  progressText();
}

function stepTrace() {
  const trace = player.trace;
  if (!trace || player.step >= trace.order.length) { stopTrace(); return false; }
  const signed = trace.order[player.step++];
  const { x, byId } = player.layout;
  const node = byId.get(Math.abs(signed));
  const svg = $("tree");
  const cx = x.get(node.id) * SPACING, cy = node.ply * player.level;
  if (signed > 0) {
    if (node.parent !== null) {
      const parent = byId.get(node.parent);
      const edge = document.createElementNS(SVG, "line");
      edge.setAttribute("x1", x.get(parent.id) * SPACING);
      edge.setAttribute("y1", parent.ply * player.level);
      edge.setAttribute("x2", cx);
      edge.setAttribute("y2", cy);
      edge.setAttribute("class", "edge");
      svg.insertBefore(edge, svg.firstChild);  // edges under the nodes
      player.edges.set(node.id, edge);
    }
    const circle = document.createElementNS(SVG, "circle");
    circle.setAttribute("cx", cx);
    circle.setAttribute("cy", cy);
    circle.setAttribute("r", player.radius);
    circle.setAttribute("class", "node open");
    circle.addEventListener("click", () => detail(node));
    circle.addEventListener("dblclick", () => toggleSubtree(node));
    circle.addEventListener("mouseenter", () => detail(node));
    const title = document.createElementNS(SVG, "title");
    title.textContent = node.board;
    circle.appendChild(title);
    svg.appendChild(circle);
    player.elements.set(node.id, circle);
    player.counts.entered++;
    if ([...player.collapsed].some((id) => isBelow(node, id))) circle.classList.add("collapsed");
  } else {
    const circle = player.elements.get(node.id);
    const value = node.value > 0 ? "o-wins" : node.value < 0 ? "x-wins" : "drawn";
    let kind = `node ${value}`;
    if (node.cutoff) kind += " cutoff";
    if (node.probe === "exact" || node.probe === "bound") kind += " hit";
    if (node.estimate) kind += " estimate";
    if (circle.classList.contains("collapsed")) kind += " collapsed";
    circle.setAttribute("class", kind);
    if (node.cutoff) player.counts.cutoffs++;
    if (node.probe === "exact" || node.probe === "bound") player.counts.hits++;
  }
  follow(cx, cy);
  detail(node);
  progressText();
  return true;
}

function isBelow(node, ancestor) {
  for (let id = node.parent; id !== null; id = player.layout.byId.get(id).parent) if (id === ancestor) return true;
  return false;
}

function detail(node) {
  player.selected = node;
  $("tree-collapse").textContent = player.collapsed.has(node.id) ? "Expand this node" : "Collapse this node";
  const window = node.alpha === null || node.alpha === undefined ? "no window" : `window (${node.alpha}, ${node.beta})`;
  let text = `node ${node.id}, ply ${node.ply}, ${node.board}` +
    (node.move === null ? " (the root)" : `, after ${cellName(node.move)}`) + `; ${window}`;
  if (node.value !== undefined) {
    text += `; value ${node.value}`;
    if (node.cutoff) text += ", cut off";
    if (node.probe === "exact" || node.probe === "bound") text += `, table hit (${node.probe})`;
    if (node.estimate) text += ", an estimate at the depth limit";
  }
  $("node-detail").textContent = text;
}

function progressText() {
  const trace = player.trace;
  if (!trace) return;
  const { entered, cutoffs, hits } = player.counts;
  $("trace-progress").textContent = `step ${player.step} of ${trace.order.length}: ${entered} nodes, ` +
    `${cutoffs} cutoffs, ${hits} table hits`;
}

function playTrace() {
  if (player.timer) { stopTrace(); return; }
  $("trace-play").textContent = "Pause";
  const tick = () => {
    const perSecond = Number($("trace-speed").value);
    const steps = Math.max(1, Math.round(perSecond / 20));
    for (let i = 0; i < steps; i++) if (!stepTrace()) return;
    player.timer = setTimeout(tick, 1000 / Math.min(perSecond, 20));
  };
  tick();
}

function stopTrace() {
  if (player.timer) clearTimeout(player.timer);
  player.timer = null;
  $("trace-play").textContent = "Play";
}

// --- start ---------------------------------------------------------------------------

function fillSelect(select, items, chosen, usable = (item) => item.available !== false) {
  select.replaceChildren();
  for (const item of items) {
    const option = document.createElement("option");
    option.value = item.name;
    option.textContent = item.name;
    option.title = item.summary || "";
    if (!usable(item)) {
      option.disabled = true;
      option.textContent += item.available === false ? " (not for this game)" : " (too slow for this game)";
      option.title = item.opponent_reason || item.reason || option.title;
    }
    select.appendChild(option);
  }
  if (chosen) select.value = chosen;
}

async function start() {
  const checkAsked = new URLSearchParams(host.query()).has("check");  // before the page writes its own URL
  // the page arrives with the game, the lists and the empty board's position inlined (one round trip)
  const boot = host.boot();
  const lists = boot.ais ? Promise.resolve([boot.ais, boot.algorithms]) : Promise.all([api("ais"), api("algorithms")]);
  state.game = boot.game || await api("game");
  state.games = boot.games || state.game.games || [state.game.game];
  state.defaultGame = boot.default_game || state.games[0];
  const chooser = $("game-choice");
  for (const name of state.games) chooser.appendChild(new Option(name, name, false, name === state.game.game));
  chooser.disabled = state.games.length < 2;
  chooser.addEventListener("change", () => {  // a new game from its start, the hints as they were
    host.switchGame(new URLSearchParams({ game: chooser.value, ...(state.hints ? { hints: "1" } : {}) }).toString());
  });
  if (boot.position) {
    for (const first of ["", boot.position.first]) positions.set(`${first} ${boot.position.board}`, Promise.resolve(boot.position));
  }
  $("game-name").textContent = state.game.game === "3x3k3" ? "tic-tac-toe" : state.game.game;
  readUrl();
  buildBoard();
  position(currentBoard()).catch(() => {});  // on its way while the lists arrive
  const [ais, algorithms] = await lists;
  if (!ais.some((ai) => ai.name === state.ai && ai.available !== false)) {
    try {
      ais.push(...(await api("ais", { ai: state.ai })));  // a setting the list does not show, as dls@2
    } catch (error) {
      notice(`?ai=${state.ai}: ${error.message}; playing ${DEFAULT_AI}`, true);
      state.ai = DEFAULT_AI;
      writeUrl();
    }
  }
  const chosen = ais.find((ai) => ai.name === state.ai);
  if (chosen && chosen.opponent === false) {
    notice(`?ai=${state.ai}: ${chosen.opponent_reason}; playing ${DEFAULT_AI}`, true);
    state.ai = DEFAULT_AI;
    writeUrl();
  }
  fillSelect($("ai"), ais, state.ai, (ai) => ai.opponent !== false && ai.available !== false);
  const checkable = ais.filter((ai) => ai.deterministic);  // the API checks no AI that answers by the clock
  if (!checkable.some((ai) => ai.name === state.checkAi && ai.available !== false)) state.checkAi = state.game.shown_check;
  fillSelect($("check-ai"), checkable, state.checkAi);
  fillSelect($("search-algorithm"), algorithms, state.game.shown_search);
  $("human").value = state.human;
  $("hints").checked = state.hints;
  $("legend").hidden = !state.hints;
  $("ai").addEventListener("change", () => { state.ai = $("ai").value; changed(); });
  $("human").addEventListener("change", () => { state.human = $("human").value; changed(); });
  $("hints").addEventListener("change", () => {
    state.hints = $("hints").checked; $("legend").hidden = !state.hints; writeUrl(); render();
  });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("restart").addEventListener("click", restart);
  $("play-out").addEventListener("click", playItOut);
  $("swap").addEventListener("click", swapSides);
  $("copy-link").hidden = !host.link;  // a notebook's widget has no link of its own
  $("copy-link").addEventListener("click", copyLink);
  host.root.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey) || state.view !== "play") return;
    if (event.key === "z") { event.preventDefault(); undo(); }
    if (event.key === "y") { event.preventDefault(); redo(); }
  });
  $("new-game").addEventListener("click", newGame);
  host.root.querySelectorAll("[role=tab]").forEach((tab) => tab.addEventListener("click", () => showView(tab.dataset.view)));
  $("check-run").addEventListener("click", () => runCheck(0));
  $("check-cancel").addEventListener("click", cancelCheck);
  $("score-file").addEventListener("change", (event) => {
    const file = event.target.files[0];
    event.target.value = "";  // the same file chosen again is scored again
    if (file) scoreFile(file);
  });
  $("failures-prev").addEventListener("click", () => runCheck(Math.max(0, state.checkOffset - PAGE)));
  $("failures-next").addEventListener("click", () => runCheck(state.checkOffset + PAGE));
  $("search-run").addEventListener("click", runSearch);
  $("trace-play").addEventListener("click", playTrace);
  $("trace-step").addEventListener("click", () => { stopTrace(); stepTrace(); });
  $("trace-reset").addEventListener("click", resetTrace);
  wireTree();
  showView(state.view);
  await render();
  host.started(state.game.game);
  if (state.view === "check" && checkAsked) runCheck(0);
}

start().catch((error) => { $("status").textContent = `The page could not start: ${error.message}`; });

// Paging both ways over DynamoDB's cursors: forward with the page's LastEvaluatedKey, backward by keeping the
// stack of the start keys of the pages seen so far.

import { h } from "./dom.js";

export class Pager {
  // load(startKey) -> a page whose cursor to the next page is page.lastKey (or page.next); render(page)
  constructor(load, render) {
    this.load = load;
    this.render = render;
    this.starts = [null];
    this.at = 0;
    this.cursor = null;
    this.controls = h("div", { class: "pager" },
      this.prevButton = h("button", { type: "button", class: "prev", onclick: () => this.previous() }, "◀ Previous"),
      this.label = h("span", { class: "page-label" }),
      this.nextButton = h("button", { type: "button", class: "next", onclick: () => this.next() }, "Next ▶"));
    this.update();
  }

  update() {
    this.prevButton.disabled = this.at === 0;
    this.nextButton.disabled = !this.cursor;
    this.label.textContent = `page ${this.at + 1}`;
  }

  // back to the first page, with no cursor (nothing shown yet)
  reset() {
    this.starts = [null];
    this.at = 0;
    this.cursor = null;
    this.update();
  }

  async first() {
    this.reset();
    return this.show();
  }

  async next() {
    if (!this.cursor) return;
    this.starts.splice(this.at + 1, this.starts.length, this.cursor);
    return this.move(this.at + 1);
  }

  async previous() {
    if (this.at > 0) return this.move(this.at - 1);
  }

  async move(to) {
    const before = this.at;
    this.at = to;
    try {
      return await this.show();
    } catch (error) {
      this.at = before;
      this.update();
      this.onerror?.(error);
    }
  }

  async show() {
    const page = await this.load(this.starts[this.at]);
    this.cursor = page.lastKey || page.next || null;
    this.update();
    this.render(page);
    return page;
  }
}

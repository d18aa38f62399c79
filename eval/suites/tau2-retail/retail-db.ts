/**
 * The τ²-bench retail tools, ported to TypeScript from sierra-research/tau2-bench
 * (`src/tau2/domains/retail/tools.py` at commit a2c0247, MIT licence: see data/LICENSE). Each tool is a
 * function of the database (mutated in place, as the Python tools mutate theirs) and its arguments; it
 * throws an `Error` with τ²'s message where the Python tool raises `ValueError`.
 *
 * Kept as in the original on purpose, so the suite's check means what τ²'s means:
 * - `modify_pending_order_items` sets every modified item's price and options from the *last* new
 *   variant of the loop (the Python code reads `variant` after the loop);
 * - `modify_pending_order_address` and `modify_pending_order_payment` accept any status containing
 *   "pending", the other pending-order tools only "pending".
 * Rounding: Python's `round(x, 2)` and `Number(x.toFixed(2))` agree except on exact binary ties, which
 * prices in cents do not produce.
 */

export interface Address {
  address1: string;
  address2: string;
  city: string;
  country: string;
  state: string;
  zip: string;
}

export interface Variant {
  item_id: string;
  options: Record<string, string>;
  available: boolean;
  price: number;
}

export interface Product {
  name: string;
  product_id: string;
  variants: Record<string, Variant>;
}

export type PaymentMethod =
  | { source: 'credit_card'; id: string; brand: string; last_four: string }
  | { source: 'paypal'; id: string }
  | { source: 'gift_card'; id: string; balance: number };

export interface User {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: Address;
  email: string;
  payment_methods: Record<string, PaymentMethod>;
  orders: string[];
}

export interface OrderItem {
  name: string;
  product_id: string;
  item_id: string;
  price: number;
  options: Record<string, string>;
}

export interface OrderPayment {
  transaction_type: 'payment' | 'refund';
  amount: number;
  payment_method_id: string;
}

export interface Order {
  order_id: string;
  user_id: string;
  address: Address;
  items: OrderItem[];
  status: string;
  fulfillments: { tracking_id: string[]; item_ids: string[] }[];
  payment_history: OrderPayment[];
  cancel_reason?: string | null;
  exchange_items?: string[] | null;
  exchange_new_items?: string[] | null;
  exchange_payment_method_id?: string | null;
  exchange_price_difference?: number | null;
  return_items?: string[] | null;
  return_payment_method_id?: string | null;
}

export interface RetailDb {
  products: Record<string, Product>;
  users: Record<string, User>;
  orders: Record<string, Order>;
}

const round2 = (value: number): number => Number(value.toFixed(2));

function getOrder(db: RetailDb, orderId: string): Order {
  const order = Object.hasOwn(db.orders, orderId) ? db.orders[orderId] : undefined;
  if (!order) throw new Error('Order not found');
  return order;
}

function getUser(db: RetailDb, userId: string): User {
  const user = Object.hasOwn(db.users, userId) ? db.users[userId] : undefined;
  if (!user) throw new Error('User not found');
  return user;
}

function getProduct(db: RetailDb, productId: string): Product {
  const product = Object.hasOwn(db.products, productId) ? db.products[productId] : undefined;
  if (!product) throw new Error('Product not found');
  return product;
}

function getVariant(db: RetailDb, productId: string, variantId: string): Variant {
  const product = getProduct(db, productId);
  const variant = Object.hasOwn(product.variants, variantId) ? product.variants[variantId] : undefined;
  if (!variant) throw new Error('Variant not found');
  return variant;
}

function getPaymentMethod(db: RetailDb, userId: string, paymentMethodId: string): PaymentMethod {
  const user = getUser(db, userId);
  const method = Object.hasOwn(user.payment_methods, paymentMethodId) ? user.payment_methods[paymentMethodId] : undefined;
  if (!method) throw new Error('Payment method not found');
  return method;
}

const count = (list: readonly string[], value: string): number => list.filter((entry) => entry === value).length;

/** Evaluates + - * / and parentheses on numbers; anything else is refused (no `eval`). */
function evaluateArithmetic(expression: string): number {
  let at = 0;
  const peek = () => expression[at];
  const skip = () => {
    while (peek() === ' ') at++;
  };
  const fail = (): never => {
    throw new Error('Invalid expression');
  };
  const primary = (): number => {
    skip();
    const char = peek();
    if (char === '(') {
      at++;
      const value = sum();
      skip();
      if (peek() !== ')') fail();
      at++;
      return value;
    }
    if (char === '-' || char === '+') {
      at++;
      const value = primary();
      return char === '-' ? -value : value;
    }
    const match = /^\d*\.?\d+|^\d+\.?/.exec(expression.slice(at));
    if (!match) return fail();
    at += match[0].length;
    return Number(match[0]);
  };
  const product = (): number => {
    let value = primary();
    for (;;) {
      skip();
      const op = peek();
      if (op !== '*' && op !== '/') return value;
      at++;
      const right = primary();
      if (op === '/' && right === 0) throw new Error('division by zero');
      value = op === '*' ? value * right : value / right;
    }
  };
  const sum = (): number => {
    let value = product();
    for (;;) {
      skip();
      const op = peek();
      if (op !== '+' && op !== '-') return value;
      at++;
      const right = product();
      value = op === '+' ? value + right : value - right;
    }
  };
  const value = sum();
  skip();
  if (at !== expression.length) fail();
  return value;
}

/** Python's `str(float)` for the values `calculate` returns (`12.0`, `3.5`). */
function pythonFloat(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

type Args = Record<string, unknown>;
const str = (args: Args, key: string): string => String(args[key] ?? '');
const list = (args: Args, key: string): string[] => (Array.isArray(args[key]) ? (args[key] as unknown[]).map(String) : []);

/** The tools by τ²'s names: each takes the database and the call's arguments. */
export const RETAIL_TOOLS: Record<string, (db: RetailDb, args: Args) => unknown> = {
  calculate(_db, args) {
    const expression = str(args, 'expression');
    if (![...expression].every((char) => '0123456789+-*/(). '.includes(char))) throw new Error('Invalid characters in expression');
    return pythonFloat(round2(evaluateArithmetic(expression)));
  },

  cancel_pending_order(db, args) {
    const order = getOrder(db, str(args, 'order_id'));
    if (order.status !== 'pending') throw new Error('Non-pending order cannot be cancelled');
    const reason = str(args, 'reason');
    if (reason !== 'no longer needed' && reason !== 'ordered by mistake') throw new Error('Invalid reason');
    const refunds: OrderPayment[] = [];
    for (const payment of order.payment_history) {
      refunds.push({ transaction_type: 'refund', amount: payment.amount, payment_method_id: payment.payment_method_id });
      const method = getPaymentMethod(db, getUser(db, order.user_id).user_id, payment.payment_method_id);
      if (method.source === 'gift_card') method.balance = round2(method.balance + payment.amount);
    }
    order.status = 'cancelled';
    order.cancel_reason = reason;
    order.payment_history.push(...refunds);
    return order;
  },

  exchange_delivered_order_items(db, args) {
    const order = getOrder(db, str(args, 'order_id'));
    if (order.status !== 'delivered') throw new Error('Non-delivered order cannot be exchanged');
    const itemIds = list(args, 'item_ids');
    const newItemIds = list(args, 'new_item_ids');
    const all = order.items.map((item) => item.item_id);
    for (const id of itemIds) if (count(itemIds, id) > count(all, id)) throw new Error(`Number of ${id} not found.`);
    if (itemIds.length !== newItemIds.length) throw new Error('The number of items to be exchanged should match.');
    let difference = 0;
    itemIds.forEach((id, index) => {
      const item = order.items.find((candidate) => candidate.item_id === id);
      if (!item) throw new Error(`Item ${id} not found`);
      const variant = getVariant(db, item.product_id, newItemIds[index] ?? '');
      if (!variant.available) throw new Error(`New item ${newItemIds[index] ?? ''} not found or available`);
      difference += variant.price - item.price;
    });
    difference = round2(difference);
    const method = getPaymentMethod(db, order.user_id, str(args, 'payment_method_id'));
    if (method.source === 'gift_card' && method.balance < difference)
      throw new Error('Insufficient gift card balance to pay for the price difference');
    order.status = 'exchange requested';
    order.exchange_items = [...itemIds].sort();
    order.exchange_new_items = [...newItemIds].sort();
    order.exchange_payment_method_id = str(args, 'payment_method_id');
    order.exchange_price_difference = difference;
    return order;
  },

  find_user_id_by_name_zip(db, args) {
    const first = str(args, 'first_name').toLowerCase();
    const last = str(args, 'last_name').toLowerCase();
    const zip = str(args, 'zip');
    for (const [id, user] of Object.entries(db.users)) {
      if (user.name.first_name.toLowerCase() === first && user.name.last_name.toLowerCase() === last && user.address.zip === zip) return id;
    }
    throw new Error('User not found');
  },

  find_user_id_by_email(db, args) {
    const email = str(args, 'email').toLowerCase();
    for (const [id, user] of Object.entries(db.users)) if (user.email.toLowerCase() === email) return id;
    throw new Error('User not found');
  },

  get_order_details: (db, args) => getOrder(db, str(args, 'order_id')),

  get_product_details: (db, args) => getProduct(db, str(args, 'product_id')),

  get_item_details(db, args) {
    const id = str(args, 'item_id');
    for (const product of Object.values(db.products)) if (Object.hasOwn(product.variants, id)) return product.variants[id];
    throw new Error('Item not found');
  },

  get_user_details: (db, args) => getUser(db, str(args, 'user_id')),

  list_all_product_types(db) {
    const byName: Record<string, string> = {};
    for (const product of Object.values(db.products)) byName[product.name] = product.product_id;
    // json.dumps(..., sort_keys=True)
    return JSON.stringify(Object.fromEntries(Object.entries(byName).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))))
      .replaceAll('":"', '": "')
      .replaceAll('","', '", "');
  },

  modify_pending_order_address(db, args) {
    const order = getOrder(db, str(args, 'order_id'));
    if (!order.status.includes('pending')) throw new Error('Non-pending order cannot be modified');
    order.address = addressOf(args);
    return order;
  },

  modify_pending_order_items(db, args) {
    const order = getOrder(db, str(args, 'order_id'));
    if (order.status !== 'pending') throw new Error('Non-pending order cannot be modified');
    const itemIds = list(args, 'item_ids');
    const newItemIds = list(args, 'new_item_ids');
    const all = order.items.map((item) => item.item_id);
    for (const id of itemIds) if (count(itemIds, id) > count(all, id)) throw new Error(`${id} not found`);
    if (itemIds.length !== newItemIds.length) throw new Error('The number of items to be exchanged should match');
    let difference = 0;
    let variant: Variant | undefined;
    itemIds.forEach((id, index) => {
      const newId = newItemIds[index] ?? '';
      if (id === newId) throw new Error('The new item id should be different from the old item id');
      const item = order.items.find((candidate) => candidate.item_id === id);
      if (!item) throw new Error(`Item ${id} not found`);
      variant = getVariant(db, item.product_id, newId);
      if (!variant.available) throw new Error(`New item ${newId} not found or available`);
      difference += variant.price - item.price;
    });
    const paymentMethodId = str(args, 'payment_method_id');
    const method = getPaymentMethod(db, order.user_id, paymentMethodId);
    if (method.source === 'gift_card' && method.balance < difference)
      throw new Error('Insufficient gift card balance to pay for the new item');
    order.payment_history.push({
      transaction_type: difference > 0 ? 'payment' : 'refund',
      amount: Math.abs(difference),
      payment_method_id: paymentMethodId,
    });
    if (method.source === 'gift_card') method.balance = round2(method.balance - difference);
    itemIds.forEach((id, index) => {
      const item = order.items.find((candidate) => candidate.item_id === id);
      if (!item || !variant) throw new Error(`Item ${id} not found`);
      item.item_id = newItemIds[index] ?? '';
      // As in τ²: the price and options of the last variant of the loop above.
      item.price = variant.price;
      item.options = variant.options;
    });
    order.status = 'pending (item modified)';
    return order;
  },

  modify_pending_order_payment(db, args) {
    const order = getOrder(db, str(args, 'order_id'));
    if (!order.status.includes('pending')) throw new Error('Non-pending order cannot be modified');
    const paymentMethodId = str(args, 'payment_method_id');
    const method = getPaymentMethod(db, order.user_id, paymentMethodId);
    const first = order.payment_history[0];
    if (order.payment_history.length !== 1 || !first || first.transaction_type !== 'payment')
      throw new Error('There should be exactly one payment for a pending order');
    if (first.payment_method_id === paymentMethodId) throw new Error('The new payment method should be different from the current one');
    const amount = first.amount;
    if (method.source === 'gift_card' && method.balance < amount) throw new Error('Insufficient gift card balance to pay for the order');
    order.payment_history.push(
      { transaction_type: 'payment', amount, payment_method_id: paymentMethodId },
      { transaction_type: 'refund', amount, payment_method_id: first.payment_method_id },
    );
    if (method.source === 'gift_card') method.balance = round2(method.balance - amount);
    const old = getPaymentMethod(db, order.user_id, first.payment_method_id);
    if (old.source === 'gift_card') old.balance = round2(old.balance + amount);
    return order;
  },

  modify_user_address(db, args) {
    const user = getUser(db, str(args, 'user_id'));
    user.address = addressOf(args);
    return user;
  },

  return_delivered_order_items(db, args) {
    const order = getOrder(db, str(args, 'order_id'));
    if (order.status !== 'delivered') throw new Error('Non-delivered order cannot be returned');
    const user = getUser(db, order.user_id);
    const paymentMethodId = str(args, 'payment_method_id');
    const method = getPaymentMethod(db, user.user_id, paymentMethodId);
    if (method.source !== 'gift_card' && paymentMethodId !== order.payment_history[0]?.payment_method_id)
      throw new Error('Payment method should be the original payment method');
    const itemIds = list(args, 'item_ids');
    const all = order.items.map((item) => item.item_id);
    for (const id of itemIds) if (count(itemIds, id) > count(all, id)) throw new Error('Some item not found');
    order.status = 'return requested';
    order.return_items = [...itemIds].sort();
    order.return_payment_method_id = paymentMethodId;
    return order;
  },

  transfer_to_human_agents: () => 'Transfer successful',
};

function addressOf(args: Args): Address {
  return {
    address1: str(args, 'address1'),
    address2: str(args, 'address2'),
    city: str(args, 'city'),
    state: str(args, 'state'),
    country: str(args, 'country'),
    zip: str(args, 'zip'),
  };
}

/** The tools that change the database (τ²'s `ToolType.WRITE`). */
export const RETAIL_WRITE_TOOLS: ReadonlySet<string> = new Set([
  'cancel_pending_order',
  'exchange_delivered_order_items',
  'modify_pending_order_address',
  'modify_pending_order_items',
  'modify_pending_order_payment',
  'modify_user_address',
  'return_delivered_order_items',
]);

// The τ²-bench retail tools as one capability, @capabilities/retail (descriptions from τ²'s tools.py,
// sierra-research/tau2-bench, MIT: see ../data/LICENSE). Handlers work on the suite's in-memory
// database, which the eval harness resets before every task.
import { z } from 'zod';
import { defineFunction, defineTool, suiteEnvironment } from 'agent-spaces';
import { RETAIL_TOOLS, type RetailDb } from '../retail-db.js';

const environment = suiteEnvironment<RetailDb>('tau2-retail');
const perform = (tool: string) => (args: Record<string, unknown>) =>
  (RETAIL_TOOLS[tool] as (db: RetailDb, a: Record<string, unknown>) => unknown)(environment.get(), args);

const ORDER_ID = "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.";
const PAYMENT_ID =
  "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.";

const address = z.object({
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  country: z.string(),
  state: z.string(),
  zip: z.string(),
});
const variant = z.object({ item_id: z.string(), options: z.record(z.string(), z.string()), available: z.boolean(), price: z.number() });
const product = z.object({ name: z.string(), product_id: z.string(), variants: z.record(z.string(), variant) });
const paymentMethod = z.object({
  source: z.enum(['credit_card', 'paypal', 'gift_card']),
  id: z.string(),
  brand: z.string().optional(),
  last_four: z.string().optional(),
  balance: z.number().optional(),
});
const user = z.object({
  user_id: z.string(),
  name: z.object({ first_name: z.string(), last_name: z.string() }),
  address,
  email: z.string(),
  payment_methods: z.record(z.string(), paymentMethod),
  orders: z.array(z.string()),
});
const order = z.object({
  order_id: z.string(),
  user_id: z.string(),
  address,
  items: z.array(
    z.object({
      name: z.string(),
      product_id: z.string(),
      item_id: z.string(),
      price: z.number(),
      options: z.record(z.string(), z.string()),
    }),
  ),
  status: z.string(),
  fulfillments: z.array(z.object({ tracking_id: z.array(z.string()), item_ids: z.array(z.string()) })),
  payment_history: z.array(
    z.object({ transaction_type: z.enum(['payment', 'refund']), amount: z.number(), payment_method_id: z.string() }),
  ),
  cancel_reason: z.string().nullable().optional(),
  exchange_items: z.array(z.string()).nullable().optional(),
  exchange_new_items: z.array(z.string()).nullable().optional(),
  exchange_payment_method_id: z.string().nullable().optional(),
  exchange_price_difference: z.number().nullable().optional(),
  return_items: z.array(z.string()).nullable().optional(),
  return_payment_method_id: z.string().nullable().optional(),
});
const addressParameters = {
  address1: z.string().describe("The first line of the address, such as '123 Main St'."),
  address2: z.string().describe("The second line of the address, such as 'Apt 1' or ''."),
  city: z.string().describe("The city, such as 'San Francisco'."),
  state: z.string().describe("The state, such as 'CA'."),
  country: z.string().describe("The country, such as 'USA'."),
  zip: z.string().describe("The zip code, such as '12345'."),
};

export const retail = defineTool({
  name: 'retail',
  description: 'The retail store of τ²-bench: users, orders, products; look-ups and order changes (cancel, modify, return, exchange).',
  functions: {
    calculate: defineFunction({
      description: 'Calculate the result of a mathematical expression.',
      parameters: z.object({
        expression: z
          .string()
          .describe(
            "The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.",
          ),
      }),
      returns: z.string(),
      handler: perform('calculate') as (args: { expression: string }) => string,
    }),
    cancel_pending_order: defineFunction({
      description:
        "Cancel a pending order. If the order is already processed or delivered, it cannot be cancelled. The agent needs to explain the cancellation detail and ask for explicit user confirmation (yes/no) to proceed. If the user confirms, the order status will be changed to 'cancelled' and the payment will be refunded. The refund will be added to the user's gift card balance immediately if the payment was made using a gift card, otherwise the refund would take 5-7 business days to process. The function returns the order details after the cancellation.",
      parameters: z.object({
        order_id: z.string().describe(ORDER_ID),
        reason: z.string().describe("The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'."),
      }),
      returns: order,
      handler: perform('cancel_pending_order') as () => z.infer<typeof order>,
    }),
    exchange_delivered_order_items: defineFunction({
      description:
        'Exchange items in a delivered order to new items of the same product type. For a delivered order, return or exchange can be only done once by the agent. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.',
      parameters: z.object({
        order_id: z.string().describe(ORDER_ID),
        item_ids: z
          .array(z.string())
          .describe("The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list."),
        new_item_ids: z
          .array(z.string())
          .describe(
            "The item ids to be exchanged for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.",
          ),
        payment_method_id: z.string().describe(PAYMENT_ID),
      }),
      returns: order,
      handler: perform('exchange_delivered_order_items') as () => z.infer<typeof order>,
    }),
    find_user_id_by_name_zip: defineFunction({
      description:
        'Find user id by first name, last name, and zip code. If the user is not found, the function will return an error message. By default, find user id by email, and only call this function if the user is not found by email or cannot remember email.',
      parameters: z.object({
        first_name: z.string().describe("The first name of the customer, such as 'John'."),
        last_name: z.string().describe("The last name of the customer, such as 'Doe'."),
        zip: z.string().describe("The zip code of the customer, such as '12345'."),
      }),
      returns: z.string(),
      handler: perform('find_user_id_by_name_zip') as () => string,
    }),
    find_user_id_by_email: defineFunction({
      description: 'Find user id by email. If the user is not found, the function will return an error message.',
      parameters: z.object({ email: z.string().describe("The email of the user, such as 'something@example.com'.") }),
      returns: z.string(),
      handler: perform('find_user_id_by_email') as () => string,
    }),
    get_order_details: defineFunction({
      description: 'Get the status and details of an order.',
      parameters: z.object({ order_id: z.string().describe(ORDER_ID) }),
      returns: order,
      handler: perform('get_order_details') as () => z.infer<typeof order>,
    }),
    get_product_details: defineFunction({
      description: 'Get the inventory details of a product.',
      parameters: z.object({
        product_id: z.string().describe("The product id, such as '6086499569'. Be careful the product id is different from the item id."),
      }),
      returns: product,
      handler: perform('get_product_details') as () => z.infer<typeof product>,
    }),
    get_item_details: defineFunction({
      description: 'Get the inventory details of an item.',
      parameters: z.object({
        item_id: z.string().describe("The item id, such as '6086499569'. Be careful the item id is different from the product id."),
      }),
      returns: variant,
      handler: perform('get_item_details') as () => z.infer<typeof variant>,
    }),
    get_user_details: defineFunction({
      description: 'Get the details of a user, including their orders.',
      parameters: z.object({ user_id: z.string().describe("The user id, such as 'sara_doe_496'.") }),
      returns: user,
      handler: perform('get_user_details') as () => z.infer<typeof user>,
    }),
    list_all_product_types: defineFunction({
      description:
        'List the name and product id of all product types. Each product type has a variety of different items with unique item ids and options. There are only 50 product types in the store. Returns a JSON string mapping product names to their product IDs, sorted alphabetically by name.',
      parameters: z.object({}),
      returns: z.string(),
      handler: perform('list_all_product_types') as () => string,
    }),
    modify_pending_order_address: defineFunction({
      description:
        'Modify the shipping address of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.',
      parameters: z.object({ order_id: z.string().describe(ORDER_ID), ...addressParameters }),
      returns: order,
      handler: perform('modify_pending_order_address') as () => z.infer<typeof order>,
    }),
    modify_pending_order_items: defineFunction({
      description:
        'Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.',
      parameters: z.object({
        order_id: z.string().describe(ORDER_ID),
        item_ids: z
          .array(z.string())
          .describe("The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list."),
        new_item_ids: z
          .array(z.string())
          .describe(
            "The item ids to be modified for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.",
          ),
        payment_method_id: z.string().describe(PAYMENT_ID),
      }),
      returns: order,
      handler: perform('modify_pending_order_items') as () => z.infer<typeof order>,
    }),
    modify_pending_order_payment: defineFunction({
      description:
        'Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.',
      parameters: z.object({ order_id: z.string().describe(ORDER_ID), payment_method_id: z.string().describe(PAYMENT_ID) }),
      returns: order,
      handler: perform('modify_pending_order_payment') as () => z.infer<typeof order>,
    }),
    modify_user_address: defineFunction({
      description:
        'Modify the default address of a user. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.',
      parameters: z.object({ user_id: z.string().describe("The user id, such as 'sara_doe_496'."), ...addressParameters }),
      returns: user,
      handler: perform('modify_user_address') as () => z.infer<typeof user>,
    }),
    return_delivered_order_items: defineFunction({
      description:
        "Return some items of a delivered order. The order status will be changed to 'return requested'. The agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed. The user will receive follow-up email for how and where to return the item.",
      parameters: z.object({
        order_id: z.string().describe(ORDER_ID),
        item_ids: z
          .array(z.string())
          .describe("The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list."),
        payment_method_id: z
          .string()
          .describe(
            "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.",
          ),
      }),
      returns: order,
      handler: perform('return_delivered_order_items') as () => z.infer<typeof order>,
    }),
    transfer_to_human_agents: defineFunction({
      description:
        "Transfer the user to a human agent, with a summary of the user's issue. Only transfer if the user explicitly asks for a human agent, or given the policy and the available tools, you cannot solve the user's issue.",
      parameters: z.object({ summary: z.string().describe("A summary of the user's issue.") }),
      returns: z.string(),
      handler: perform('transfer_to_human_agents') as () => string,
    }),
  },
});

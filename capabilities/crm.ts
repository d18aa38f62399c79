// A small CRM with local data. Creating a ticket requires approval.
import { z } from 'zod';
import { defineFunction, defineTool } from 'agent-spaces';

const customer = z.object({ id: z.string(), name: z.string(), plan: z.enum(['free', 'pro', 'enterprise']), email: z.string() });
const ticket = z.object({
  id: z.string(),
  customerId: z.string(),
  subject: z.string(),
  priority: z.enum(['low', 'medium', 'high']),
  createdAt: z.string(),
});
type Ticket = z.infer<typeof ticket>;

const CUSTOMERS: z.infer<typeof customer>[] = [
  { id: 'c-001', name: 'Acme Corp', plan: 'enterprise', email: 'ops@acme.example' },
  { id: 'c-002', name: 'Globex', plan: 'pro', email: 'it@globex.example' },
  { id: 'c-003', name: 'Initech', plan: 'free', email: 'admin@initech.example' },
  { id: 'c-004', name: 'Acme Labs', plan: 'pro', email: 'labs@acme.example' },
];
const tickets: Ticket[] = [];

export const crm = defineTool({
  name: 'crm',
  description: 'Company CRM: customers and support tickets',
  version: '1.0.0',
  functions: {
    searchCustomers: defineFunction({
      description: 'Search customers by name (case-insensitive substring)',
      parameters: z.object({ query: z.string().min(1), limit: z.number().int().positive().default(10) }),
      returns: z.array(customer),
      handler: ({ query, limit }) => CUSTOMERS.filter((c) => c.name.toLowerCase().includes(query.toLowerCase())).slice(0, limit),
    }),
    createTicket: defineFunction({
      description: 'Create a support ticket for a customer (requires approval)',
      parameters: z.object({
        customerId: z.string(),
        subject: z.string().min(1),
        priority: z.enum(['low', 'medium', 'high']).default('medium'),
      }),
      returns: ticket,
      requiresApproval: true,
      approvalMessage: (p) => `Create ${p.priority} ticket for customer ${p.customerId}: "${p.subject}"?`,
      handler: ({ customerId, subject, priority }) => {
        if (!CUSTOMERS.some((c) => c.id === customerId)) throw new Error(`no customer with id "${customerId}"`);
        const created: Ticket = {
          id: `t-${String(tickets.length + 1).padStart(3, '0')}`,
          customerId,
          subject,
          priority,
          createdAt: new Date().toISOString(),
        };
        tickets.push(created);
        return created;
      },
    }),
    listTickets: defineFunction({
      description: 'List the tickets created so far in this process',
      returns: z.array(ticket),
      handler: () => [...tickets],
    }),
  },
});

// The shop's data, fixed so the agent is deterministic offline.
export interface Order {
  id: string;
  item: string;
  amount: number;
  status: 'processing' | 'shipped' | 'delivered';
  deliveredDaysAgo?: number;
  eta?: string;
  carrier?: string;
}

export const ORDERS: Record<string, Order> = {
  'ORD-12345': { id: 'ORD-12345', item: 'Trail running shoes', amount: 89.9, status: 'delivered', deliveredDaysAgo: 10 },
  'ORD-23456': { id: 'ORD-23456', item: 'Rain jacket', amount: 120, status: 'shipped', eta: '2026-11-25', carrier: 'PostNord' },
  'ORD-34567': { id: 'ORD-34567', item: 'Headlamp', amount: 35, status: 'processing', eta: '2026-11-28' },
  'ORD-99999': { id: 'ORD-99999', item: 'Camping stove', amount: 64.5, status: 'delivered', deliveredDaysAgo: 45 },
};

export const REFUND_WINDOW_DAYS = 30;

export interface Article {
  id: string;
  title: string;
  keywords: string[];
  summary: string;
}

export const ARTICLES: Article[] = [
  { id: 'KB-101', title: 'Resetting your password', keywords: ['password', 'reset', 'login', 'sign in'], summary: 'Use "Forgot password" on the sign-in page; the reset link is valid for one hour.' },
  { id: 'KB-102', title: 'Changing your delivery address', keywords: ['address', 'delivery', 'change'], summary: 'You can change the address until the order ships, under My orders > Edit.' },
  { id: 'KB-103', title: 'Our refund policy', keywords: ['refund', 'return', 'policy', 'money back'], summary: 'Delivered items can be refunded within 30 days; the money is back in 5 working days.' },
  { id: 'KB-104', title: 'Gift cards', keywords: ['gift', 'card', 'voucher'], summary: 'Gift cards are valid for two years and can be combined with other payments.' },
];

export function searchArticles(query: string, limit = 3): Article[] {
  const words = query.toLowerCase();
  return ARTICLES.map((a) => ({ a, hits: a.keywords.filter((k) => words.includes(k)).length }))
    .filter((x) => x.hits > 0)
    .sort((x, y) => y.hits - x.hits)
    .slice(0, limit)
    .map((x) => x.a);
}

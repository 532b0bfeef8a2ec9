/* A small kernel-style translation unit: the source of the recorded
 * compile traces/samples/cc1-small.tlbt.xz (traces/samples/README.md). */
struct list_head {
	struct list_head *next, *prev;
};

static inline void __list_add(struct list_head *n, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}

export type Page = { page: number; limit: number };

export type Pagination = {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  totalPages: number;
  hasNext: boolean;
  hasPrev: boolean;
};

export function paginate({ page, limit }: Page, total: number): Pagination {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, total_pages: totalPages, totalPages, hasNext: page < totalPages, hasPrev: page > 1 };
}


/* xml.h — small helpers over libxml2 shared by the XML readers: safe
 * parsing, element iteration, typed text and attribute values with errors
 * that name file:line and the element. */
#ifndef WK_FORMATS_XML_H
#define WK_FORMATS_XML_H

#include <libxml/tree.h>

#include "formats/desc_internal.h"

/* Parses a file (text NULL) or a string, refusing network access and
 * leaving entities unexpanded. NULL with st filled on failure: WK_DEADLINE
 * when d (NULL for none) gives up while it is parsed (wk__desc_gives_up). */
xmlDocPtr wk__xml_parse(const char *path, const char *text, wk_world_desc *d, wk_status *st);

/* Blanks the hyphens inside each comment of the len bytes of text that
 * holds "--" or ends in "-", which tinyxml2 (and so libsdformat, urdfdom
 * and MuJoCo) accepts and libxml2 refuses (xml_comments.c). True when it
 * changed anything. */
bool wk__xml_blank_comment_hyphens(char *text, size_t len);

/* The element children of n, one after another: for (c = first; c; c = next). */
xmlNodePtr wk__xml_first(xmlNodePtr n);
xmlNodePtr wk__xml_next(xmlNodePtr n);
/* The first element child named name, or NULL. */
xmlNodePtr wk__xml_child(xmlNodePtr n, const char *name);
bool wk__xml_is(xmlNodePtr n, const char *name);
uint32_t wk__xml_line(xmlNodePtr n);

/* Attribute or text copied into the description's arena; NULL when absent. */
const char *wk__xml_attr(wk_world_desc *d, xmlNodePtr n, const char *name);
const char *wk__xml_text(wk_world_desc *d, xmlNodePtr n);

/* Reports an element (attr NULL) or an attribute of it that the reader does
 * not read, met in file (NULL for a string): a warning naming file:line and
 * the element path (/sdf/world/model/bogus@attr), or WK_UNSUPPORTED_ELEMENTS
 * when opts ask to fail on them. */
int wk__xml_unsupported(wk_world_desc *d, const wk_read_desc *opts, const char *file, xmlNodePtr el,
                        const char *attr, wk_status *st);

/* The element serialized as XML text, in the arena; NULL when out of memory. */
const char *wk__xml_dump(wk_world_desc *d, xmlNodePtr el);

/* Parses up to max whitespace-separated numbers of n's text into out; returns
 * how many, or -1 when a token is not a finite number. */
int wk__xml_numbers(xmlNodePtr n, double *out, int max);
/* One number that may be infinite (inf, -inf, as strtod spells them), as
 * libsdformat reads a joint's limits; false for anything else, NaN too. */
bool wk__xml_bound(xmlNodePtr n, double *out);

#endif

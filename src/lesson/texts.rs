//! The lessons' words, in English and Chinese. The Chinese follows the
//! seeds' own terms: 内嵌、子引用、父引用、一对很少 / 一对很多 / 一对非常多、
//! 反范式、双向关联、多态模式、桶模式、计算模式、扩展引用、预聚合报告。

use super::Lesson;

pub const LESSONS: &[Lesson] = &[
    Lesson {
        name: "cardinality",
        title: (
            "Cardinality and the three basic designs: embed, child reference, parent reference",
            "一对多关系的三种基础方案：内嵌、子引用、父引用",
        ),
        datasets: &["one_to_few", "one_to_many", "one_to_squillions"],
        seeds: "000, 003, 004",
        workload: false,
        idea: (
            "Before designing a one-to-many relationship, ask how many the \"many\" are. One-to-few (a person's addresses, well under a hundred): embed them — one read returns everything. One-to-many (a product's parts, hundreds, at most a few thousand, and parts that stand alone): keep an array of the children's ObjectIds in the parent (child reference) and fetch the children with $in. One-to-squillions (a host's log messages, without bound): no array in the parent can hold them, so each child stores its parent's id (parent reference) and an index on that field finds them.\n\nThe second question is whether the \"many\" side must be reached on its own. If it must, it needs its own documents.",
            "设计一对多关系之前，先问：“多”到底有多少？一对很少（一个人的几个地址，远少于一百个）：直接内嵌，一次读取就拿到全部。一对很多（一个产品的零件，数百个、最多几千个，而且零件需要单独存在）：在父文档中保存子文档 ObjectID 的数组（子引用），再用 $in 取回子文档。一对非常多（一台主机的日志，没有上限）：父文档里的任何数组都装不下，所以让每个子文档保存父文档的 id（父引用），并为这个字段建索引来查找。\n\n第二个问题是：“多”的一方是否需要被单独访问？如果需要，它就应该有自己的文档。",
        ),
        look_for: (
            "Compare the array lengths and their growth with the fan-out the relationships report: embedded arrays stay short and stable; the child-reference array has hundreds of ids; the bad one-to-squillions variant embeds a log array that grows every day and heads for the 16 MiB limit, while the good variant's log documents stay small and point to their host.",
            "对比数组长度及其增长，与关系统计中的扇出（每个父文档的子文档数）：内嵌数组短而稳定；子引用数组有数百个 id；一对非常多的不好设计把日志内嵌成数组，每天都在增长，正在逼近 16 MiB 上限，而好的设计中每条日志都是小文档，并引用它的主机。",
        ),
        question: (
            "A shop adds product reviews. A popular product gets a few new reviews every day, forever. Which of the three designs do you choose, and which number above would you watch to know you chose right?",
            "一家网店要加入商品评论。热门商品每天都会新增几条评论，而且永远不会停。你会选三种方案中的哪一种？你会关注上面的哪个数字来确认自己选对了？",
        ),
    },
    Lesson {
        name: "two-way",
        title: ("Two-way referencing", "双向关联（Two-Way Referencing）"),
        datasets: &["two_way"],
        seeds: "000",
        workload: false,
        idea: (
            "In a task tracker, a person holds an array of task ids (to list their tasks) and each task holds its owner's id (to show who owns it). Both directions are then one indexed query away. The price: reassigning a task means updating two documents, and the two updates are not atomic unless you use a transaction — for a moment the person and the task can disagree.",
            "在任务跟踪系统中，person 文档保存任务 id 的数组（用来列出他的任务），每个 task 文档再保存负责人的 id（用来显示谁负责）。这样两个方向都只需一次带索引的查询。代价是：把任务转给别人时要更新两个文档，除非使用事务，这两次更新不是原子的——短时间内 person 和 task 可能不一致。",
        ),
        look_for: (
            "docshape reports the pair as two-way-reference. Check that both directions resolve (ids found) and how many tasks a person holds at most: a two-way design only makes sense while that array stays small.",
            "docshape 会把这一对引用报告为 two-way-reference（双向关联）。检查两个方向的 id 是否都能找到，以及一个人最多持有多少个任务：只有当这个数组保持很小时，双向关联才合理。",
        ),
        question: (
            "Your application must never show a task under two owners, even for a second. What do you change: drop one direction, or keep both and update them in a transaction? What does each choice cost?",
            "你的应用绝不允许一个任务同时出现在两个负责人名下，哪怕只有一秒。你会怎么改：去掉一个方向的引用，还是保留两个方向并用事务更新？每种选择的代价是什么？",
        ),
    },
    Lesson {
        name: "denormalization",
        title: ("Denormalization and its update cost", "反范式及其更新代价"),
        datasets: &["denormalization", "contacts"],
        seeds: "000, 001",
        workload: false,
        idea: (
            "Copying a part's name into every product that uses it (many → one) saves a join on every read. But each copy must be updated when the source changes, and the copies are not updated atomically with it. Copy only fields that are read far more often than they change — a part's name, never its stock. Copying a group's data into a million contacts (001) turns one edit of the group into a million writes; such data belongs in its own collection.",
            "把零件名称冗余到每个使用它的产品中（多 → 一），每次读取都能省掉一次关联查询。但源数据一变，每一份副本都要更新，而且副本不会与源数据原子地更新。只冗余读远多于写的字段——零件的名称可以，零件的库存绝对不行。把分组信息复制到上百万个联系人中（001），修改一次分组就变成了上百万次写入；这样的数据应该放在独立的集合里。",
        ),
        look_for: (
            "The bad variants show stale copies: denormalization-drift counts how many copies disagree with their source. Compare the size of the contacts documents with and without the copied group data.",
            "不好的设计中存在过期的副本：denormalization-drift 统计了有多少副本与源数据不一致。再比较复制了分组信息和没有复制时联系人文档的大小。",
        ),
        question: (
            "Product names change twice a year; prices change every hour. Which of the two would you copy into orders, and why is an order's price copy not really \"denormalization\" at all?",
            "产品名称一年改两次，价格每小时都在变。你会把哪一个冗余到订单中？为什么订单里保存的价格其实根本不算“反范式”？",
        ),
    },
    Lesson {
        name: "when-to-reference",
        title: ("When to reference: big, changing, growing", "什么时候该用引用：大、常变、持续增长"),
        datasets: &["contacts", "blog"],
        seeds: "001, 002",
        workload: false,
        idea: (
            "Embedding is the default, but three things call for a reference (001): the embedded part is large (megabytes, near 16 MiB — a contact's 5–10 MB avatar read by one query in ten), it changes often (a group edited every day), or it grows without a cap (comments, logs, transactions). Each makes the parent document expensive to read, to write, or eventually impossible to store.",
            "内嵌是默认选择，但有三种情况应该使用引用（001）：内嵌的部分太大（数 MB、接近 16 MiB——例如十次查询才用到一次的 5–10 MB 联系人头像）；它经常修改（每天都在编辑的分组）；或者它会无上限地增长（评论、日志、交易记录）。每一种都会让父文档读起来贵、写起来贵，甚至最终无法保存。",
        ),
        look_for: (
            "Look at which path carries the bytes (bloated-document), how fast the comments array grows per day, and the forecast of when the largest post would pass 16 MiB. The good variants keep the parent small and stable.",
            "看看是哪个路径承载了大部分字节（bloated-document），评论数组每天增长多快，以及最大的帖子预计多久会超过 16 MiB。好的设计让父文档保持小而稳定。",
        ),
        question: (
            "A blog shows the 10 newest comments under each post and \"show all\" on demand. Design it so that a viral post can never hit the limit — and so that the post page still needs a single read.",
            "博客在每篇帖子下显示最新的 10 条评论，点击“显示全部”时再加载全部。请设计一个方案：即使帖子爆红也不会碰到上限，同时帖子页面仍然只需一次读取。",
        ),
    },
    Lesson {
        name: "polymorphic",
        title: ("Polymorphic documents and schema evolution", "多态模式与模式演进"),
        datasets: &["polymorphic", "schema_evolution"],
        seeds: "002, 003",
        workload: false,
        idea: (
            "A collection may hold documents of similar but different shapes — books, shirts and lamps in one products collection. That is the polymorphic pattern, and it works well when every document says what it is (a type field). Schema evolution is the same thing over time: a field changes type or name, and old and new documents live side by side until the old ones are migrated, piece by piece, with a version field telling them apart.",
            "一个集合可以保存结构相似但不完全相同的文档——例如把图书、衬衫、台灯都放在 products 集合里。这就是多态模式，只要每个文档都说明自己是什么（一个 type 字段），它就很好用。模式演进是同一件事在时间上的体现：某个字段改了类型或名字，新旧文档并存，直到旧文档被一部分一部分地迁移，并用版本字段加以区分。",
        ),
        look_for: (
            "polymorphic-without-discriminator shows the shapes the sample splits into and their shares; mixed-types shows a path holding two types and in what proportion. The good variants have a type field and one type per path.",
            "polymorphic-without-discriminator 显示样本分成了哪几种结构以及各自的比例；mixed-types 显示某个路径同时保存了两种类型及其比例。好的设计有 type 字段，每个路径只有一种类型。",
        ),
        question: (
            "You must change `price` from a string to a decimal in a 50-million-document collection without downtime. Describe the steps, and what every reader must do until the last step is done.",
            "你需要在一个有五千万文档的集合中，把 `price` 从字符串改成 decimal，而且不能停机。请描述步骤，以及在最后一步完成之前，每个读取方必须做什么。",
        ),
    },
    Lesson {
        name: "bucket",
        title: ("The bucket pattern for time series", "时间序列的桶模式"),
        datasets: &["time_series", "sensor_collections"],
        seeds: "002, 003",
        workload: false,
        idea: (
            "Storing one document per sensor reading pays the per-document overhead — _id, index entries, field names — for a few bytes of data, and an hour of data is thousands of documents. The bucket pattern stores one document per sensor per hour, with the readings in an array and count, sum, min and max kept up to date: document and index counts drop by an order of magnitude, and most questions are answered from the pre-computed fields. One collection per sensor is the opposite mistake: thousands of collections, each with its own files and indexes.",
            "每个传感器读数存一个文档，意味着为几个字节的数据付出每个文档的固定开销——_id、索引项、字段名——而一小时的数据就是成千上万个文档。桶模式为每个传感器每小时存一个文档，读数放在数组中，并维护 count、sum、min、max：文档数和索引项减少一个数量级，大多数问题直接由预计算字段回答。每个传感器一个集合则是相反的错误：成千上万个集合，各自都有数据文件和索引。",
        ),
        look_for: (
            "Compare the number of documents and their average size between the per-event and the bucketed variants, and note time-series-per-event's evidence: how small the events are and how few distinct sensors they belong to. Field names take more than half of every event's bytes; long-field-names reports it once the teacher lifts its floor of 64 MiB saved (the README's Teaching section), which 12,000 events do not reach.",
            "比较逐事件存储与分桶存储两种设计的文档数和平均大小，并留意 time-series-per-event 给出的证据：事件有多小，它们只属于多少个不同的传感器。字段名占了每个事件一半以上的字节；long-field-names 要求改名至少节省 64 MiB，12,000 个事件达不到，老师放宽这一下限后（见 README 的 Teaching 一节）它才会报告。",
        ),
        question: (
            "Readings arrive every second and the dashboard shows hourly averages. How big should a bucket be — a minute, an hour, a day? What breaks if you choose too large, and what if too small?",
            "读数每秒到达一次，仪表盘显示每小时的平均值。一个桶应该多大——一分钟、一小时、还是一天？选得太大会出什么问题？太小又会怎样？",
        ),
    },
    Lesson {
        name: "computed",
        title: ("The computed pattern", "计算模式"),
        datasets: &["computed"],
        seeds: "003",
        workload: false,
        idea: (
            "When the same summary is read again and again — a product's average rating and number of reviews — compute it when the data changes and store it, instead of recomputing it on every read. Writes do a little more work; thousands of reads do none.",
            "当同一个汇总结果被反复读取时——例如商品的平均评分和评论数——就在数据变化时计算并保存它，而不是每次读取时重新计算。写入时多做一点工作，成千上万次读取就省下了全部计算。",
        ),
        look_for: (
            "The good variant carries small pre-computed rating fields; the bad one keeps every rating in the product document, so every read drags the whole array along and the document grows with each review.",
            "好的设计只带有很小的预计算评分字段；不好的设计把每一条评分都放在商品文档里，每次读取都要拖着整个数组，文档还会随每条评论增长。",
        ),
        question: (
            "Two reviews are written at the same moment. How do you keep `rating_count` and `rating_sum` correct without a lock — which update operators make this safe?",
            "两条评论在同一时刻写入。在不加锁的情况下，怎样保证 `rating_count` 和 `rating_sum` 正确？哪些更新操作符能让它安全？",
        ),
    },
    Lesson {
        name: "extended-reference",
        title: ("The extended reference pattern", "扩展引用模式"),
        datasets: &["extended_reference"],
        seeds: "003, 000",
        workload: false,
        idea: (
            "An order references its customer, but shows the customer's name and shipping address on every read. Copy those few hot fields next to the reference — an extended reference — and the order page needs no join. The copy is a snapshot: for an order that is exactly right (the address it was shipped to), for a customer's current phone number it is not.",
            "订单引用了客户，但每次读取都要显示客户的姓名和收货地址。把这几个常用字段复制到引用旁边——这就是扩展引用——订单页面就不需要关联查询。副本是一份快照：对订单来说这恰恰正确（当时寄送的地址），但对客户当前的电话号码来说就不对了。",
        ),
        look_for: (
            "docshape reports the order's embedded customer as an extended-reference and checks the copies against the customers collection: the bad variant's copies have drifted from their source.",
            "docshape 把订单中内嵌的客户信息识别为 extended-reference（扩展引用），并拿副本与 customers 集合比对：不好的设计中副本已经与源数据不一致。",
        ),
        question: (
            "Which fields of a customer would you copy into an order, which would you never copy, and which copies should be refreshed when the customer changes them?",
            "客户的哪些字段你会复制到订单中？哪些绝对不复制？哪些副本应该在客户修改时同步刷新？",
        ),
    },
    Lesson {
        name: "pre-aggregated",
        title: ("Pre-aggregated reports", "预聚合报告"),
        datasets: &["page_stats"],
        seeds: "002",
        workload: false,
        idea: (
            "A page-view report keeps one document per page per day and increments counters as views arrive. With one key per minute (\"0\" … \"1439\") the document holds 1,440 fields, and MongoDB finds a key by scanning the object in order: updating minute 1439 is far slower than minute 0. Splitting the day into 24 hour sub-documents of 60 minutes each bounds every scan, and the keys-that-are-data problem shows up in the profile as dynamic keys.",
            "页面访问报告为每个页面每天保存一个文档，访问到来时递增计数器。如果每分钟一个键（“0”……“1439”），文档就有 1,440 个字段，而 MongoDB 要按顺序扫描对象才能找到某个键：更新第 1439 分钟比第 0 分钟慢得多。把一天拆成 24 个小时子文档、每个 60 分钟，就限制了每次扫描的长度；而“键就是数据”的问题在结构分析中表现为动态键。",
        ),
        look_for: (
            "dynamic-keys on the bad variant: how many distinct keys, and what share look like numbers. Compare the number of distinct paths with the good variant's. The minute keys are reported once, as keys that are data, and not counted again by too-many-fields.",
            "看不好的设计上的 dynamic-keys：有多少个不同的键，其中多大比例看起来是数字。再把不同路径的数量与好的设计比较。这些分钟键作为“键就是数据”只报告一次，不会再被 too-many-fields 重复计算。",
        ),
        question: (
            "Would an array of 1,440 numbers (one per minute) be better or worse than 24 hour sub-documents? Think about what an update of minute 900 has to do in each.",
            "用一个 1,440 个数字的数组（每分钟一个）会比 24 个小时子文档更好还是更差？想一想在两种设计中更新第 900 分钟各要做些什么。",
        ),
    },
    Lesson {
        name: "indexes",
        title: ("Indexes for references, and the ESR rule", "为引用建索引，以及 ESR 规则"),
        datasets: &["indexes", "one_to_squillions"],
        seeds: "003, 002, 000",
        workload: false,
        idea: (
            "A reference is only as fast as the index behind it: a parent reference without an index turns every \"children of this parent\" query into a collection scan, and then application-level joins really are slow. Compound indexes follow ESR: fields matched by Equality first, then the Sort fields, then Range conditions. Every index costs memory and write time, so an index that is a prefix of another, or that nobody uses, is pure cost.",
            "引用的速度取决于它背后的索引：没有索引的父引用会让每次“查找这个父文档的子文档”都变成全集合扫描，这时应用层的关联才真的慢。复合索引遵循 ESR 规则：先放等值匹配（Equality）的字段，再放排序（Sort）字段，最后放范围（Range）条件。每个索引都占用内存并拖慢写入，所以作为另一个索引前缀的索引、或者没人用的索引，只剩下开销。",
        ),
        look_for: (
            "missing-reference-index names the reference field and the number of documents a query would scan; redundant-index and unused-index name the indexes to drop; the good variant has exactly the indexes its references need.",
            "missing-reference-index 指出缺少索引的引用字段，以及一次查询要扫描的文档数；redundant-index 和 unused-index 指出可以删除的索引；好的设计恰好拥有引用所需要的索引。",
        ),
        question: (
            "The query is `find({host_id: H, level: \"error\"}).sort({time: -1})` with a time range. Write the index ESR suggests, and explain why {time: -1, host_id: 1} would be worse.",
            "查询是 `find({host_id: H, level: \"error\"}).sort({time: -1})`，并带有时间范围。写出按 ESR 规则应该建的索引，并解释为什么 {time: -1, host_id: 1} 更差。",
        ),
    },
    Lesson {
        name: "esr",
        title: (
            "The ESR rule, measured on a workload: equality, sort, range",
            "用工作负载检验 ESR 规则：等值、排序、范围",
        ),
        datasets: &["indexes"],
        seeds: "002, 003",
        workload: true,
        idea: (
            "An index is a sorted list of keys. A query whose equality fields lead the index reads one contiguous run of it. If the sort fields come next, that run is already in the order asked for and nothing is sorted in memory. Range fields come last: a range on an earlier field splits the run into one piece per value in the range, each sorted on its own, and the server must sort them all again in memory. So an index for a query puts the Equality fields first (the most selective first), then the Sort fields in the query's direction, then the Range fields (002 ch. 4, 003).\n\nThe bundled workload (sample-data/workload/mongod.log, a mongod log of the same queries on this data) asks for paid orders over an amount, newest first: equality on status, a sort on placed_at, a range on total. The bad collection's indexes put the range before the sort.",
            "索引是一串排好序的键。如果查询的等值字段排在索引最前面，它只需读取索引中连续的一段。如果接着是排序字段，这一段本身就已经是所要的顺序，不需要在内存中排序。范围字段放在最后：如果范围条件落在前面的字段上，这一段就会按范围内的每个值拆成许多小段，每段各自有序，服务器只好在内存中把它们重新排序。所以为查询设计索引时，先放等值（Equality）字段（选择性最高的在前），再按查询的方向放排序（Sort）字段，最后放范围（Range）字段（002 第 4 章，003）。\n\n随附的工作负载（sample-data/workload/mongod.log，即这些查询在这份数据上的 mongod 日志）查询金额超过某值的已付款订单，按时间从新到旧：status 等值，placed_at 排序，total 范围。不好的集合的索引把范围放在了排序之前。",
        ),
        look_for: (
            "The workload section lists each query shape with its plan, the documents it examined per document returned and how many of its runs sorted in memory. On bad_orders, index-esr names the shape and the index in ESR order that serves it, extending the index it can replace; on good_orders, the customer's orders read one key per document returned and never sort in memory. Compare the suggested key with the indexes bad_orders already has: more indexes did not help, the order of their fields is what matters.",
            "工作负载部分列出每个查询形状的执行计划、每返回一个文档检查的文档数，以及有多少次在内存中排序。在 bad_orders 上，index-esr 指出这个查询形状和按 ESR 顺序能满足它的索引，并扩展它可以取代的那个索引；在 good_orders 上，查询某个客户的订单时每返回一个文档只读取一个索引键，从不在内存中排序。把建议的索引键和 bad_orders 已有的索引比一比：索引多并没有用，关键是字段的顺序。",
        ),
        question: (
            "An order page filters by customer (equality) and by placed_at within the last month (range), and sorts by total. Write the index in ESR order. What changes if the page sorts by placed_at instead?",
            "一个订单页面按 customer 过滤（等值），按最近一个月的 placed_at 过滤（范围），并按 total 排序。写出按 ESR 顺序的索引。如果页面改为按 placed_at 排序，索引会有什么变化？",
        ),
    },
    Lesson {
        name: "refine-by-workload",
        title: (
            "Refining a model by its workload: reads, writes and what each query needs",
            "根据工作负载细化模型：读、写，以及每个查询真正需要什么",
        ),
        datasets: &["contacts", "extended_reference"],
        seeds: "001, 000",
        workload: true,
        idea: (
            "A model is first drawn from the entities and their relationships, then refined by its workload: which operations run, how often, and what each one reads and writes (001). Count the reads and the writes of each collection. A field copied into other documents is cheap to read and expensive to change: renaming a group copied into a million contacts is a million-document write, and an edit that stops half way leaves contacts disagreeing with their group. Denormalise only fields read far more often than they are written (000, rule of thumb 6). A large field that few queries want — a 5–10 MB avatar, shown by one query of a contact in ten — makes every other read carry it: move it out (its own collection, or GridFS) and fetch it only when it is asked for.",
            "模型先根据实体及其关系画出来，再根据工作负载细化：有哪些操作、执行多频繁、每个操作读什么写什么（001）。统计每个集合的读和写。复制到其他文档中的字段读起来便宜，改起来昂贵：一个分组的信息复制进一百万个联系人，改一次分组名就是一百万个文档的写入；改到一半停下来，联系人就会和分组不一致。只对读远多于写的字段做反范式（000，经验法则 6）。少数查询才需要的大字段——例如十次读取联系人只有一次要显示的 5–10 MB 头像——会让其余每次读取都背着它：把它移出去（独立集合或 GridFS），需要时再取。",
        ),
        look_for: (
            "The workload section counts each collection's reads and writes and each query shape's runs. In contacts, set the renames of bad_groups against the reads of bad_contacts and the copies each rename should rewrite: write-amplified-copy gives the updates per 100 reads and the copies that already disagree. Set the reads of bad_contacts, which return the whole contact (an avatar embedded in it comes along whether it is shown or not), against good_contacts and the few avatar reads from good_avatars.files. In extended_reference, loyalty points change after orders: copied into bad_orders they drift, while good_orders copies only the name, which good_customers' updates never touch.",
            "工作负载部分统计了每个集合的读写次数和每个查询形状的执行次数。在 contacts 中，把 bad_groups 的改名次数与 bad_contacts 的读取次数、以及每次改名需要改写的副本数放在一起看：write-amplified-copy 给出了每 100 次读取对应的更新次数，以及已经不一致的副本数。再把 bad_contacts 的读取（每次都读出整个联系人，内嵌的头像无论是否显示都会一起读出）与 good_contacts 的读取、以及 good_avatars.files 中少量的头像读取对比。在 extended_reference 中，积分在下单后会变化：复制到 bad_orders 中就会过期，而 good_orders 只复制了名字，good_customers 的更新从不触及它。",
        ),
        question: (
            "Your contacts app shows the group's name in every list, and users now rename groups every day. With the read and write counts above, do you keep copying the name or look it up? Which number would make you change your mind?",
            "你的联系人应用在每个列表中都显示分组名，而现在用户每天都会改分组名。根据上面的读写次数，你会继续复制分组名，还是改为查找？哪个数字会让你改变主意？",
        ),
    },
];
